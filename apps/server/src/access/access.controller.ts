import { Body, Controller, Param } from '@nestjs/common';
import type { OperationResult } from '@svc/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { Authorized, Operation } from '../authorization/operation.decorator';
import type { AuthorizedTargets } from '../authorization/operation-guard';
import { AccessService } from './access.service';
import { AddAccessInput } from './dto';

/** device_access_list, device_access_add, device_access_remove: routes and capabilities from the operation catalog. */
@ApiTags('device access')
@ApiBearerAuth()
@UsersOnly()
@Controller()
export class AccessController {
  constructor(private readonly access: AccessService) {}

  @Operation('device_access_list')
  list(@Authorized() { device }: AuthorizedTargets): OperationResult<'device_access_list'> {
    return this.access.list(device!.device);
  }

  @Operation('device_access_add')
  add(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string, @Body() body: AddAccessInput): Promise<OperationResult<'device_access_add'>> {
    return this.access.add(principal, device, body.email_or_org_id, body.role);
  }

  @Operation('device_access_remove')
  remove(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string, @Param('email_or_org_id') emailOrOrgId: string): Promise<OperationResult<'device_access_remove'>> {
    return this.access.remove(principal, device, emailOrOrgId);
  }
}
