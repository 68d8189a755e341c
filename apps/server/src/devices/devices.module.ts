import { Module } from '@nestjs/common';
import { StorageModule } from '../storage/storage.module';
import { AuditModule } from '../audit/audit.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { RegistrationsModule } from '../registrations/registrations.module';
import { TunnelsModule } from '../replicas/tunnels.module';
import { DeviceRecordsModule } from './records/device-records.module';
import { catalogController } from '../authorization/catalog-controller';
import { DevicesController } from './devices.controller';
import { DevicesService } from './devices.service';
import { DevicePresence } from './device-presence';
import { LastSeenRecorder } from './last-seen.recorder';
import { TunnelPresence } from './tunnel-presence';

/** Device lifecycle: listing, status, approval (through registrations), removal; presence from the tunnel. Its records: records/. */
@Module({
  imports: [StorageModule, DeviceRecordsModule, AuditModule, AuthorizationModule, RegistrationsModule, TunnelsModule],
  providers: [DevicesService, LastSeenRecorder, TunnelPresence, { provide: DevicePresence, useExisting: TunnelPresence }],
  controllers: [DevicesController, catalogController(DevicesService, 'devices')],
  exports: [DevicesService, DevicePresence],
})
export class DevicesModule {}
