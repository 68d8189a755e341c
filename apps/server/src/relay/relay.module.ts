import { DynamicModule, Module, type ModuleMetadata } from '@nestjs/common';
import { RelayService } from './relay.service';
import { RELAY_OPTIONS, RelayOptions } from './relay.options';
import { TunnelStateModule } from './tunnel-state.module';

/**
 * The tunnel listener (UNIFIED_PORT). It imports no feature: `ports` are the modules that provide
 * what it needs (TunnelCredentials, RevocationFeed and, optionally, ClientStreamAcceptor, see
 * tunnel-ports.ts), chosen by the composition root.
 */
@Module({})
export class RelayModule {
  static forRoot(options: RelayOptions, ports: NonNullable<ModuleMetadata['imports']>): DynamicModule {
    return {
      module: RelayModule,
      imports: [TunnelStateModule, ...ports],
      providers: [{ provide: RELAY_OPTIONS, useValue: options }, RelayService],
      exports: [RelayService],
    };
  }
}
