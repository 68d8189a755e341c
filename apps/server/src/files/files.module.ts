import { Module } from '@nestjs/common';
import { FilesController } from './files.controller';
import { FilesService } from './files.service';
import { SyncAudit } from './sync-audit';

/** Device files over the tunnel (ls, content up and down, sync's tree listing and delete). */
@Module({
  providers: [FilesService, SyncAudit],
  controllers: [FilesController],
})
export class FilesModule {}
