import { Module } from '@nestjs/common';
import { AccessPolicy } from './access-policy.service';

/** The access policy; every feature module that decides access imports it. */
@Module({ providers: [AccessPolicy], exports: [AccessPolicy] })
export class AuthorizationModule {}
