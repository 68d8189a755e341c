import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { UsersModule } from '../users/users.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { JwtStrategy } from '../auth/jwt.strategy';
import { AuthenticationGuard } from './authentication.guard';
import { BearerAuthenticator } from './bearer-authenticator';

/** Deny by default: the guard is global and only @Public() routes skip it. */
@Module({
  imports: [PassportModule, UsersModule, AuthorizationModule],
  providers: [JwtStrategy, BearerAuthenticator, { provide: APP_GUARD, useClass: AuthenticationGuard }],
  exports: [BearerAuthenticator],
})
export class AuthenticationModule {}
