import { Module } from '@nestjs/common';
import { AuditService } from './audit.service';
import { RetentionJob } from './retention.job';

@Module({ providers: [AuditService, RetentionJob], exports: [AuditService, RetentionJob] })
export class AuditModule {}
