import { Module } from '@nestjs/common';
import { StorageModule } from '../storage/storage.module';
import { AuditModule } from '../audit/audit.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { DeviceRecordsModule } from '../devices/records/device-records.module';
import { ServerMetricsModule } from '../common/server-metrics.module';
import { FleetEventsModule } from '../events/fleet-events.module';
import { ReplicasModule } from '../replicas/replicas.module';
import { RevocationFeed, TunnelCredentials } from '../relay/tunnel-ports';
import { DeviceKeyCredentials } from './device-key-credentials';
import { DeviceRevocations } from './device-revocations';
import { RegistrationsController } from './registrations.controller';
import { catalogController } from '../authorization/catalog-controller';
import { RegistrationsRepository } from './registrations.repository';
import { RegistrationsService } from './registrations.service';
import { RegistrationEvents } from './registration-events';
import { RevocationsRepository } from './revocations.repository';

/**
 * Registration requests, approval and API keys; provides the tunnel's credential and revocation
 * ports. An approval writes the device through the devices feature's records (DeviceRecords).
 */
@Module({
  imports: [StorageModule, AuditModule, AuthorizationModule, DeviceRecordsModule, ServerMetricsModule, FleetEventsModule, ReplicasModule],
  providers: [
    RegistrationsService,
    RegistrationEvents,
    RegistrationsRepository,
    RevocationsRepository,
    DeviceRevocations,
    { provide: RevocationFeed, useExisting: DeviceRevocations },
    { provide: TunnelCredentials, useClass: DeviceKeyCredentials },
  ],
  controllers: [RegistrationsController, catalogController(RegistrationsService, 'devices')],
  exports: [RegistrationsService, DeviceRevocations, RevocationFeed, TunnelCredentials],
})
export class RegistrationsModule {}
