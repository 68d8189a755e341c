import { Module } from '@nestjs/common';
import { OrgsRepository } from '../storage/repositories/orgs.repository';
import { MembershipsRepository } from '../storage/repositories/memberships.repository';
import { DevicesRepository } from '../storage/repositories/devices.repository';
import { RegistrationsRepository } from '../storage/repositories/registrations.repository';
import { AuditModule } from '../audit/audit.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { DevicesModule } from '../devices/devices.module';
import { OrgsService } from './orgs.service';
import { OrgDevicesService } from './org-devices.service';
import { OrgsController } from './orgs.controller';

@Module({ imports: [AuditModule, AuthorizationModule, DevicesModule], providers: [OrgsService, OrgDevicesService, OrgsRepository, MembershipsRepository, DevicesRepository, RegistrationsRepository], controllers: [OrgsController] })
export class OrgsModule {}
