import { Module } from '@nestjs/common';
import { ServerMetricsModule } from '../common/server-metrics.module';
import { InProcessTunnelDirectory, SHARED_TUNNEL_DIRECTORY, TunnelDirectory } from './tunnel-directory';
import { TunnelRegistry } from './tunnel-registry.service';

/**
 * Who is connected: the tunnels this process holds and the directory of every device's tunnel.
 * Free of feature imports; the operations that open streams (and devices' presence) import it.
 * The directory is the replicas' shared one when a global module provides SHARED_TUNNEL_DIRECTORY.
 */
@Module({
  imports: [ServerMetricsModule],
  providers: [
    TunnelRegistry,
    {
      provide: TunnelDirectory,
      useFactory: (shared?: TunnelDirectory) => shared ?? new InProcessTunnelDirectory(),
      inject: [{ token: SHARED_TUNNEL_DIRECTORY, optional: true }],
    },
  ],
  exports: [TunnelRegistry, TunnelDirectory],
})
export class TunnelStateModule {}
