import { Module } from '@nestjs/common';
import { UsersRepository } from '../storage/repositories/users.repository';
import { MembershipsRepository } from '../storage/repositories/memberships.repository';
import { AuditModule } from '../audit/audit.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { UsersService } from './users.service';
import { UsersController } from './users.controller';

@Module({ imports: [AuditModule, AuthorizationModule], providers: [UsersService, UsersRepository, MembershipsRepository], controllers: [UsersController], exports: [UsersService] })
export class UsersModule {}
