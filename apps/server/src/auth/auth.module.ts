import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { UsersModule } from '../users/users.module';
import { JwtStrategy } from './jwt.strategy';
import { AuthenticationGuard } from './authentication.guard';

/** Deny by default: the guard is global and only @Public() routes skip it. */
@Module({
  imports: [PassportModule, UsersModule],
  providers: [JwtStrategy, { provide: APP_GUARD, useClass: AuthenticationGuard }],
})
export class AuthModule {}
