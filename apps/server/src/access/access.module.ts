import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { DeviceRecordsModule } from '../devices/records/device-records.module';
import { OrgRecordsModule } from '../orgs/records/org-records.module';
import { FleetEventsModule } from '../events/fleet-events.module';
import { AccessService } from './access.service';
import { catalogController } from '../authorization/catalog-controller';
import { CallerCapabilitiesService } from './caller-capabilities.service';

/**
 * Sharing: writes a device's share list through the devices feature's records, and checks an organization exists through the orgs feature's.
 * Also what the caller may do on a device, an organization and the server (the *_capabilities operations).
 */
@Module({ imports: [AuditModule, AuthorizationModule, DeviceRecordsModule, OrgRecordsModule, FleetEventsModule], providers: [AccessService, CallerCapabilitiesService], controllers: [catalogController(AccessService, 'device access'), catalogController(CallerCapabilitiesService, 'access', { adminKey: true })], exports: [AccessService] })
export class AccessModule {}
