import { Controller, Headers, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { FILE_HTTP_HEADERS, SubRouteInput, SubRouteResult } from '@svc/common';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { Authorized, Input, OperationRoute } from '../authorization/operation.decorator';
import type { AuthorizedTargets } from '../authorization/operation-guard';
import { FilesService } from './files.service';

/**
 * The file operations on one device (docs/protocol.md, "Files"); device_ls, device_cp and
 * device_sync are the client's compositions of these routes, each bound from the catalog's
 * `routes` of the three (path, parameters, capability, body and answer media types, refusals:
 * the OpenAPI document is theirs). Headers and trailers of a transfer are in docs/protocol.md.
 */
@ApiTags('files')
@ApiBearerAuth()
@UsersOnly()
@Controller()
export class FilesController {
  constructor(private readonly files: FilesService) {}

  @OperationRoute('device_ls.list')
  list(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Input() input: SubRouteInput<'device_ls.list'>, @Res() res: Response): Promise<void> {
    return this.files.list(principal, device!.device.id, input.path, res);
  }

  @OperationRoute('device_cp.download')
  download(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Input() input: SubRouteInput<'device_cp.download'>, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.files.download(principal, device!.device.id, input, req, res);
  }

  @OperationRoute('device_cp.upload')
  upload(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Input() input: SubRouteInput<'device_cp.upload'>, @Req() req: Request): Promise<SubRouteResult<'device_cp.upload'>> {
    return this.files.upload(principal, device!.device.id, input, req);
  }

  @OperationRoute('device_sync.manifest')
  manifest(
    @CurrentPrincipal() principal: UserPrincipal,
    @Authorized() { device }: AuthorizedTargets,
    @Input() input: SubRouteInput<'device_sync.manifest'>,
    @Headers(FILE_HTTP_HEADERS.listSkipped) listSkipped: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    return this.files.manifest(principal, device!.device.id, input, res, listSkipped === '1');
  }

  @OperationRoute('device_sync.delete')
  delete(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Input() input: SubRouteInput<'device_sync.delete'>): Promise<SubRouteResult<'device_sync.delete'>> {
    return this.files.delete(principal, device!.device.id, input);
  }

  @OperationRoute('device_sync.sync_end')
  endSync(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Input() input: SubRouteInput<'device_sync.sync_end'>): Promise<SubRouteResult<'device_sync.sync_end'>> {
    return this.files.endSync(principal, device!.device.id, input.sync);
  }
}
