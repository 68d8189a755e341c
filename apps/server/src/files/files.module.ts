import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { TunnelsModule } from '../replicas/tunnels.module';
import { FilesController } from './files.controller';
import { FilesService } from './files.service';
import { SyncAudit } from './sync-audit';

/** Device files over the tunnel (ls, content up and down, sync's tree listing and delete). */
@Module({
  imports: [AuditModule, AuthorizationModule, TunnelsModule],
  providers: [FilesService, SyncAudit],
  controllers: [FilesController],
})
export class FilesModule {}
