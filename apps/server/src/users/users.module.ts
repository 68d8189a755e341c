import { Module } from '@nestjs/common';
import { StorageModule } from '../storage/storage.module';
import { AuditModule } from '../audit/audit.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { OrgRecordsModule } from '../orgs/records/org-records.module';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';
import { catalogController } from '../authorization/catalog-controller';

@Module({ imports: [StorageModule, AuditModule, AuthorizationModule, OrgRecordsModule], providers: [UsersService, UsersRepository], controllers: [catalogController(UsersService, 'users', { adminKey: true })], exports: [UsersService] })
export class UsersModule {}
