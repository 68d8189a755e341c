import { Module } from '@nestjs/common';
import { RegistrationsRepository } from '../storage/repositories/registrations.repository';
import { RevocationsRepository } from '../storage/repositories/revocations.repository';
import { DevicesRepository } from '../storage/repositories/devices.repository';
import { AuditModule } from '../audit/audit.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { RevocationFeed, TunnelCredentials } from '../relay/tunnel-ports';
import { DeviceKeyCredentials } from './device-key-credentials';
import { DeviceRevocations } from './device-revocations';
import { RegistrationsController } from './registrations.controller';
import { RegistrationsService } from './registrations.service';

/** Registration requests, approval and API keys; provides the tunnel's credential and revocation ports. */
@Module({
  imports: [AuditModule, AuthorizationModule],
  providers: [
    RegistrationsService,
    RegistrationsRepository,
    RevocationsRepository,
    DevicesRepository,
    DeviceRevocations,
    { provide: RevocationFeed, useExisting: DeviceRevocations },
    { provide: TunnelCredentials, useClass: DeviceKeyCredentials },
  ],
  controllers: [RegistrationsController],
  exports: [RegistrationsService, DeviceRevocations, RevocationFeed, TunnelCredentials],
})
export class RegistrationsModule {}
