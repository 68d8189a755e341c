import { DynamicModule, Module, type ModuleMetadata } from '@nestjs/common';
import { RelayService } from './relay.service';
import { RELAY_OPTIONS, RelayOptions } from './relay.options';

/**
 * The tunnel listener (UNIFIED_PORT). It imports no feature: `ports` are the modules that provide
 * what it needs (the tunnel state's TunnelRegistry, with its own ports plugged in, see
 * tunnel-state.module.ts; TunnelCredentials, RevocationFeed and, optionally, ClientStreamAcceptor,
 * see tunnel-ports.ts), chosen by the composition root.
 */
@Module({})
export class RelayModule {
  static forRoot(options: RelayOptions, ports: NonNullable<ModuleMetadata['imports']>): DynamicModule {
    return {
      module: RelayModule,
      imports: ports,
      providers: [{ provide: RELAY_OPTIONS, useValue: options }, RelayService],
      exports: [RelayService],
    };
  }
}
