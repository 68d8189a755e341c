import { Controller, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiConsumes, ApiExcludeEndpoint, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { FsDeleteResult, SubRouteInput } from '@svc/common';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { Authorized, Input, OperationRoute } from '../authorization/operation.decorator';
import type { AuthorizedTargets } from '../authorization/operation-guard';
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
 * device_sync are the client's compositions of these routes, each bound from the catalog's
 * `routes` of the three (path, parameters, capability). Downloads and tree listings stream
 * (bytes with a checksum trailer, NDJSON), which OpenAPI cannot describe: they are documented in
 * docs/protocol.md only.
 */
@ApiTags('files')
@ApiBearerAuth()
@UsersOnly()
@Controller()
export class FilesController {
  constructor(private readonly files: FilesService) {}

  @OperationRoute('device_ls.list')
  @ApiResponse({ status: 200, description: 'the directory\'s entries, sorted by name', schema: { type: 'array', items: ENTRY_SCHEMA } })
  list(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Input() input: SubRouteInput<'device_ls.list'>, @Res() res: Response): Promise<void> {
    return this.files.list(principal, device!.device.id, input.path, res);
  }

  @OperationRoute('device_cp.download')
  @ApiExcludeEndpoint()
  download(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Input() input: SubRouteInput<'device_cp.download'>, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.files.download(principal, device!.device.id, input, req, res);
  }

  @OperationRoute('device_cp.upload')
  @ApiConsumes('application/octet-stream')
  @ApiResponse({ status: 200, description: 'the file was written and its checksum verified', schema: WRITTEN_SCHEMA })
  upload(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Input() input: SubRouteInput<'device_cp.upload'>, @Req() req: Request): Promise<UploadOutcome> {
    return this.files.upload(principal, device!.device.id, input, req);
  }

  @OperationRoute('device_sync.manifest')
  @ApiExcludeEndpoint()
  manifest(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Input() input: SubRouteInput<'device_sync.manifest'>, @Res() res: Response): Promise<void> {
    return this.files.manifest(principal, device!.device.id, input, res);
  }

  @OperationRoute('device_sync.delete')
  @ApiResponse({ status: 200, description: 'entries removed under the sync root', schema: { type: 'object', properties: { deleted: COUNT } } })
  delete(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Input() input: SubRouteInput<'device_sync.delete'>): Promise<FsDeleteResult> {
    return this.files.delete(principal, device!.device.id, input);
  }

  @OperationRoute('device_sync.sync_end')
  @ApiResponse({
    status: 200,
    description: 'the sync\'s audit entry was written; what the server counted',
    schema: { type: 'object', properties: { written: COUNT, writtenBytes: COUNT, read: COUNT, readBytes: COUNT, deleted: COUNT } },
  })
  endSync(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Input() input: SubRouteInput<'device_sync.sync_end'>): Promise<SyncCounts> {
    return this.files.endSync(principal, device!.device.id, input.sync);
  }
}
