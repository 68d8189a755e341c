import { Module } from '@nestjs/common';
import { DevicesRepository } from '../storage/repositories/devices.repository';
import { OrgsRepository } from '../storage/repositories/orgs.repository';
import { MembershipsRepository } from '../storage/repositories/memberships.repository';
import { AuditRepository } from '../storage/repositories/audit.repository';
import { AuditModule } from '../audit/audit.module';
import { AccessPolicy } from './access-policy.service';
import { RefusalAudit } from './refusal-audit';

/** The access policy; every feature module that decides access imports it. */
@Module({ imports: [AuditModule], providers: [AccessPolicy, RefusalAudit, DevicesRepository, OrgsRepository, MembershipsRepository, AuditRepository], exports: [AccessPolicy] })
export class AuthorizationModule {}
