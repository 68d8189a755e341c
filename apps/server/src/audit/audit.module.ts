import { Module } from '@nestjs/common';
import { StorageModule } from '../storage/storage.module';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { AuditWriter } from './audit-writer';

@Module({ imports: [StorageModule], providers: [AuditService, AuditRepository, AuditWriter], exports: [AuditService] })
export class AuditModule {}
