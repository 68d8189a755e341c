import { Module } from '@nestjs/common';
import { StorageModule } from '../storage/storage.module';
import { AuditModule } from '../audit/audit.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { DevicesModule } from '../devices/devices.module';
import { DeviceRecordsModule } from '../devices/records/device-records.module';
import { RegistrationsModule } from '../registrations/registrations.module';
import { FleetEventsModule } from '../events/fleet-events.module';
import { OrgRecordsModule } from './records/org-records.module';
import { OrgsService } from './orgs.service';
import { OrgDevicesService } from './org-devices.service';
import { catalogController } from '../authorization/catalog-controller';

/**
 * Organizations, members, devices moved in and out. Its records (records/) are a module of their
 * own, below AccessPolicy; devices' records and registration requests change through their owners.
 */
@Module({
  imports: [StorageModule, OrgRecordsModule, AuditModule, AuthorizationModule, DevicesModule, DeviceRecordsModule, RegistrationsModule, FleetEventsModule],
  providers: [OrgsService, OrgDevicesService],
  controllers: [catalogController(OrgsService, 'organizations', { adminKey: true }), catalogController(OrgDevicesService, 'organizations')],
})
export class OrgsModule {}
