import { Global, Module } from '@nestjs/common';
import { AccessPolicy } from './access-policy.service';

/** The access policy, available to every feature module (devices, access, orgs, registrations, tunnel). */
@Global()
@Module({ providers: [AccessPolicy], exports: [AccessPolicy] })
export class AuthorizationModule {}
