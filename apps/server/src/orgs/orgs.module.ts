import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { DevicesModule } from '../devices/devices.module';
import { OrgsService } from './orgs.service';
import { OrgDevicesService } from './org-devices.service';
import { OrgsController } from './orgs.controller';

@Module({ imports: [AuditModule, AuthorizationModule, DevicesModule], providers: [OrgsService, OrgDevicesService], controllers: [OrgsController] })
export class OrgsModule {}
