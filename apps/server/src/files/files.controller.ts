import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiConsumes, ApiExcludeEndpoint, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { FsDeleteResult } from '@svc/common';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { DeleteInput, DownloadQuery, FilePathQuery, ManifestInput, SyncEndInput, UploadQuery } from './dto';
import { FilesService, UploadOutcome } from './files.service';
import type { SyncCounts } from './sync-audit';

const ENTRY_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, is_dir: { type: 'boolean' }, size: { type: 'integer' }, mode: { type: 'integer' }, mtime: { type: 'integer' }, is_symlink: { type: 'boolean' } },
};
const WRITTEN_SCHEMA = { type: 'object', properties: { path: { type: 'string' }, size: { type: 'integer' }, sha256: { type: 'string' } } };
const COUNT = { type: 'integer' };

/**
 * The file operations on one device (docs/protocol.md, "Files"); device_ls, device_cp and
 * device_sync are the client's compositions of these routes. Downloads and tree listings stream
 * (bytes with a checksum trailer, NDJSON), which OpenAPI cannot describe: they are documented in
 * docs/protocol.md only.
 */
@ApiTags('files')
@ApiBearerAuth()
@UsersOnly()
@Controller('devices/:device/files')
export class FilesController {
  constructor(private readonly files: FilesService) {}

  @Get()
  @ApiResponse({ status: 200, description: 'the directory\'s entries, sorted by name', schema: { type: 'array', items: ENTRY_SCHEMA } })
  list(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string, @Query() query: FilePathQuery, @Res() res: Response): Promise<void> {
    return this.files.list(principal, device, query.path, res);
  }

  @Get('content')
  @ApiExcludeEndpoint()
  download(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string, @Query() query: DownloadQuery, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.files.download(principal, device, query, req, res);
  }

  @Put('content')
  @ApiConsumes('application/octet-stream')
  @ApiResponse({ status: 200, description: 'the file was written and its checksum verified', schema: WRITTEN_SCHEMA })
  upload(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string, @Query() query: UploadQuery, @Req() req: Request): Promise<UploadOutcome> {
    return this.files.upload(principal, device, query, req);
  }

  @Post('manifest')
  @ApiExcludeEndpoint()
  manifest(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string, @Body() body: ManifestInput, @Res() res: Response): Promise<void> {
    return this.files.manifest(principal, device, body, res);
  }

  @Post('delete')
  @HttpCode(200)
  @ApiResponse({ status: 200, description: 'entries removed under the sync root', schema: { type: 'object', properties: { deleted: COUNT } } })
  delete(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string, @Body() body: DeleteInput): Promise<FsDeleteResult> {
    return this.files.delete(principal, device, body);
  }

  @Post('sync-end')
  @HttpCode(200)
  @ApiResponse({
    status: 200,
    description: 'the sync\'s audit entry was written; what the server counted',
    schema: { type: 'object', properties: { written: COUNT, writtenBytes: COUNT, read: COUNT, readBytes: COUNT, deleted: COUNT } },
  })
  endSync(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string, @Body() body: SyncEndInput): Promise<SyncCounts> {
    return this.files.endSync(principal, device, body);
  }
}
