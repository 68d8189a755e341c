import { Module } from '@nestjs/common';
import { StorageModule } from '../storage/storage.module';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';

@Module({ imports: [StorageModule], providers: [AuditService, AuditRepository], exports: [AuditService] })
export class AuditModule {}
