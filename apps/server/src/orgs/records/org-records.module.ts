import { Module } from '@nestjs/common';
import { StorageModule } from '../../storage/storage.module';
import { MembershipsRepository } from './memberships.repository';
import { OrgRecords } from './org-records';
import { OrgsRepository } from './orgs.repository';

/**
 * The orgs feature's records (organizations and memberships), below AccessPolicy and accounts:
 * they use `OrgRecords`; the repositories are for orgs/ alone (the lint's no-foreign-repository rule).
 */
@Module({ imports: [StorageModule], providers: [OrgsRepository, MembershipsRepository, OrgRecords], exports: [OrgsRepository, MembershipsRepository, OrgRecords] })
export class OrgRecordsModule {}
