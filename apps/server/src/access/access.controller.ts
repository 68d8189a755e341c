import { Controller } from '@nestjs/common';
import type { OperationResult, RouteInput } from '@svc/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { Authorized, Input, Operation } from '../authorization/operation.decorator';
import type { AuthorizedTargets } from '../authorization/operation-guard';
import { AccessService } from './access.service';

/** device_access_list, device_access_add, device_access_remove: routes, input and capabilities from the operation catalog. */
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
  add(@CurrentPrincipal() principal: UserPrincipal, @Input() input: RouteInput<'device_access_add'>): Promise<OperationResult<'device_access_add'>> {
    return this.access.add(principal, input.device, input.email_or_org_id, input.role);
  }

  @Operation('device_access_remove')
  remove(@CurrentPrincipal() principal: UserPrincipal, @Input() input: RouteInput<'device_access_remove'>): Promise<OperationResult<'device_access_remove'>> {
    return this.access.remove(principal, input.device, input.email_or_org_id);
  }
}
