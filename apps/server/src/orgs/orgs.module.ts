import { Module } from '@nestjs/common';
import { DevicesModule } from '../devices/devices.module';
import { OrgsService } from './orgs.service';
import { OrgDevicesService } from './org-devices.service';
import { OrgsController } from './orgs.controller';

@Module({ imports: [DevicesModule], providers: [OrgsService, OrgDevicesService], controllers: [OrgsController] })
export class OrgsModule {}
