import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { ScheduleModule } from '@nestjs/schedule';
import { ConfigModule } from './config/config.module';
import type { ServerConfig } from './config/server-config';
import { Clock, SystemClock } from './common/clock';
import { AllExceptionsFilter } from './common/http-exception.filter';
import { StorageModule } from './storage/storage.module';
import { AuditModule } from './audit/audit.module';
import { AuthenticationModule } from './authentication/authentication.module';
import { AuthorizationModule } from './authorization/authorization.module';
import { UsersModule } from './users/users.module';
import { DevicesModule } from './devices/devices.module';
import { AccessModule } from './access/access.module';
import { OrgsModule } from './orgs/orgs.module';
import { HealthController } from './health/health.controller';
import { AuthConfigController } from './discovery/auth-config.controller';
import { ExecModule } from './exec/exec.module';
import { FilesModule } from './files/files.module';
import { GatewayModule } from './gateway/gateway.module';
import { RegistrationsModule } from './registrations/registrations.module';
import { RelayModule } from './relay/relay.module';
import { DeploymentsModule } from './deployments/deployments.module';
import { ReplicaListenerModule } from './replicas/replica-listener.module';
import { TunnelsModule } from './replicas/tunnels.module';
import { TerminalModule } from './terminal/terminal.module';
import { EventsModule } from './events/events.module';
import { MetricsModule } from './metrics/metrics.module';

export interface AppOptions {
  clock?: Clock;
  /** Tests drive the retention job themselves instead of the hourly schedule. */
  schedule?: boolean;
  /** false: no tunnel listener on UNIFIED_PORT (suites that need no runtimes). */
  relay?: boolean;
}

@Module({})
export class AppModule {
  static forRoot(config: ServerConfig, options: AppOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config, options.clock ?? new SystemClock()),
        ...(options.schedule === false ? [] : [ScheduleModule.forRoot()]),
        // In-process domain events (e.g. devices' DEVICE_REMOVED, which deployments react to).
        EventEmitterModule.forRoot(),
        ...StorageModule.connection(config.storage),
        StorageModule,
        MetricsModule,
        AuditModule,
        // GET /events; the features emit through FleetEventsModule, which each imports.
        EventsModule,
        AuthenticationModule,
        AuthorizationModule,
        UsersModule,
        DevicesModule,
        AccessModule,
        OrgsModule,
        DeploymentsModule,
        ExecModule,
        FilesModule,
        GatewayModule,
        TerminalModule,
        // The tunnel's ports: its state (with the replicas' directory and peer hop when NATS_URL is
        // set), device keys and their revocations, and the client-stream gateway.
        RelayModule.forRoot({ listen: options.relay !== false }, [TunnelsModule, RegistrationsModule, GatewayModule]),
        // NATS_URL: this replica's peer listener (the other replicas' streams to its devices).
        ...(config.replicas ? [ReplicaListenerModule] : []),
      ],
      controllers: [HealthController, AuthConfigController],
      providers: [{ provide: APP_FILTER, useClass: AllExceptionsFilter }],
    };
  }
}
