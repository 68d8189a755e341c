import { Module } from '@nestjs/common';
import { RegistrationsService } from '../registrations/registrations.service';
import { RegistrationsController } from '../registrations/registrations.controller';
import { DevicesController } from './devices.controller';
import { DevicesService } from './devices.service';
import { DeviceResolver } from './device-resolver.service';
import { DevicePresence, DeviceRevocations, NoTunnelsPresence } from './device-presence';

/** Device lifecycle: registration requests, approval, listing, status, removal. */
@Module({
  providers: [DeviceResolver, DevicesService, RegistrationsService, DeviceRevocations, { provide: DevicePresence, useClass: NoTunnelsPresence }],
  controllers: [RegistrationsController, DevicesController],
  exports: [DeviceResolver, DevicesService, DeviceRevocations, DevicePresence],
})
export class DevicesModule {}
