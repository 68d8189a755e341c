import { Global, Module } from '@nestjs/common';
import { AccessPolicy } from './access-policy.service';
import { RefusalAudit } from './refusal-audit';

/** The access policy, available to every feature module (devices, access, orgs, registrations, tunnel). */
@Global()
@Module({ providers: [AccessPolicy, RefusalAudit], exports: [AccessPolicy] })
export class AuthorizationModule {}
