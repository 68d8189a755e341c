import { DynamicModule, Global, Module } from '@nestjs/common';
import { Clock } from '../common/clock';
import { SERVER_CONFIG, ServerConfig } from './server-config';

/** Makes the configuration parsed at start-up, and the clock, injectable everywhere. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: ServerConfig, clock: Clock): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: SERVER_CONFIG, useValue: config },
        { provide: Clock, useValue: clock },
      ],
      exports: [SERVER_CONFIG, Clock],
    };
  }
}
