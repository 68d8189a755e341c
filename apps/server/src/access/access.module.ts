import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { DeviceRecordsModule } from '../devices/records/device-records.module';
import { OrgRecordsModule } from '../orgs/records/org-records.module';
import { AccessService } from './access.service';
import { catalogController } from '../authorization/catalog-controller';
import { CallerCapabilitiesController } from './caller-capabilities.controller';
import { DeviceCapabilitiesController } from './device-capabilities.controller';

/** Sharing: writes a device's share list through the devices feature's records, and checks an organization exists through the orgs feature's. */
@Module({ imports: [AuditModule, AuthorizationModule, DeviceRecordsModule, OrgRecordsModule], providers: [AccessService], controllers: [catalogController(AccessService, 'device access'), DeviceCapabilitiesController, CallerCapabilitiesController], exports: [AccessService] })
export class AccessModule {}
