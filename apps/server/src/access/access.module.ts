import { Module } from '@nestjs/common';
import { DevicesRepository } from '../storage/repositories/devices.repository';
import { OrgsRepository } from '../storage/repositories/orgs.repository';
import { AuditModule } from '../audit/audit.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { DevicesModule } from '../devices/devices.module';
import { AccessService } from './access.service';
import { AccessController } from './access.controller';

@Module({ imports: [AuditModule, AuthorizationModule, DevicesModule], providers: [AccessService, DevicesRepository, OrgsRepository], controllers: [AccessController], exports: [AccessService] })
export class AccessModule {}
