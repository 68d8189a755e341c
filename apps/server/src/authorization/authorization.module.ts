import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { DeviceRecordsModule } from '../devices/records/device-records.module';
import { OrgRecordsModule } from '../orgs/records/org-records.module';
import { AccessPolicy } from './access-policy.service';
import { RefusalAudit } from './refusal-audit';

/** The access policy; every feature module that decides access imports it. It reads devices, organizations and removals through their owners' record modules. */
@Module({ imports: [AuditModule, DeviceRecordsModule, OrgRecordsModule], providers: [AccessPolicy, RefusalAudit], exports: [AccessPolicy] })
export class AuthorizationModule {}
