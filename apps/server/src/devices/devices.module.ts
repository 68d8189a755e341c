import { Module } from '@nestjs/common';
import { RegistrationsService } from '../registrations/registrations.service';
import { RegistrationsController } from '../registrations/registrations.controller';
import { DevicesController } from './devices.controller';
import { DevicesService } from './devices.service';
import { DevicePresence } from './device-presence';
import { DeviceRevocations } from './device-revocations';
import { TunnelPresence } from '../relay/tunnel-presence';

/** Device lifecycle: registration requests, approval, listing, status, removal. */
@Module({
  providers: [DevicesService, RegistrationsService, DeviceRevocations, { provide: DevicePresence, useExisting: TunnelPresence }],
  controllers: [RegistrationsController, DevicesController],
  exports: [DevicesService, DeviceRevocations, DevicePresence],
})
export class DevicesModule {}
