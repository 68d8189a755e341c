import { DynamicModule, Module } from '@nestjs/common';
import { DevicesModule } from '../devices/devices.module';
import { ExecController } from '../exec/exec.controller';
import { ExecService } from '../exec/exec.service';
import { FilesModule } from '../files/files.module';
import { GatewayModule } from '../gateway/gateway.module';
import { AuthConfigController } from './auth-config.controller';
import { RelayService } from './relay.service';
import { RELAY_OPTIONS, RelayOptions } from './relay.options';
import { TunnelStateModule } from './tunnel-state.module';

/** The tunnel listener (UNIFIED_PORT), tunnel discovery (/auth/config) and the operations riding it. */
@Module({})
export class RelayModule {
  static forRoot(options: RelayOptions): DynamicModule {
    return {
      module: RelayModule,
      imports: [TunnelStateModule, DevicesModule, GatewayModule, FilesModule],
      providers: [{ provide: RELAY_OPTIONS, useValue: options }, RelayService, ExecService],
      controllers: [AuthConfigController, ExecController],
      exports: [RelayService],
    };
  }
}
