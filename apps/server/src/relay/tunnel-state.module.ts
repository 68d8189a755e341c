import { DynamicModule, Module, type ModuleMetadata } from '@nestjs/common';
import { ServerMetricsModule } from '../common/server-metrics.module';
import { InProcessTunnelDirectory, SHARED_TUNNEL_DIRECTORY, TunnelDirectory } from './tunnel-directory';
import { TunnelRegistry } from './tunnel-registry.service';

/**
 * Who is connected: the tunnels this process holds and the directory of every device's tunnel.
 * Free of feature imports: `ports` is the module that provides SHARED_TUNNEL_DIRECTORY and
 * PeerSessions (tunnel-ports.ts), each null when this process is alone; the directory is then
 * this process's own. Plugged in once outside relay/ (replicas/ TunnelsModule, which the modules
 * that open streams import), so that the process has one registry.
 */
@Module({})
export class TunnelStateModule {
  static withPorts(ports: NonNullable<ModuleMetadata['imports']>[number]): DynamicModule {
    return {
      module: TunnelStateModule,
      imports: [ServerMetricsModule, ports],
      providers: [
        TunnelRegistry,
        {
          provide: TunnelDirectory,
          useFactory: (shared: TunnelDirectory | null) => shared ?? new InProcessTunnelDirectory(),
          inject: [SHARED_TUNNEL_DIRECTORY],
        },
      ],
      exports: [TunnelRegistry, TunnelDirectory],
    };
  }
}
