import { Module } from '@nestjs/common';
import { InProcessTunnelDirectory, TunnelDirectory } from './tunnel-directory';
import { TunnelRegistry } from './tunnel-registry.service';

/**
 * Who is connected: the tunnels this process holds and the directory of every device's tunnel.
 * Free of feature imports; the operations that open streams (and devices' presence) import it.
 */
@Module({
  providers: [TunnelRegistry, { provide: TunnelDirectory, useClass: InProcessTunnelDirectory }],
  exports: [TunnelRegistry, TunnelDirectory],
})
export class TunnelStateModule {}
