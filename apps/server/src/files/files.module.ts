import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { TunnelStateModule } from '../relay/tunnel-state.module';
import { FilesController } from './files.controller';
import { FilesService } from './files.service';
import { SyncAudit } from './sync-audit';

/** Device files over the tunnel (ls, content up and down, sync's tree listing and delete). */
@Module({
  imports: [AuditModule, AuthorizationModule, TunnelStateModule],
  providers: [FilesService, SyncAudit],
  controllers: [FilesController],
})
export class FilesModule {}
