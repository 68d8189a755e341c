import { Global, Module } from '@nestjs/common';
import { AuditService } from './audit.service';
import { RetentionJob } from './retention.job';

@Global()
@Module({ providers: [AuditService, RetentionJob], exports: [AuditService, RetentionJob] })
export class AuditModule {}
