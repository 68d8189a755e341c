import { Controller } from '@nestjs/common';
import type { OperationResult, RouteInput } from '@svc/common';
import { ApiBearerAuth, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { Principal, UserPrincipal } from '../auth/principal';
import { Authorized, Input, Operation } from '../authorization/operation.decorator';
import type { AuthorizedTargets } from '../authorization/operation-guard';
import { OrgsService } from './orgs.service';
import { OrgDevicesService } from './org-devices.service';

/**
 * org_list, org_create, org_delete, org_update, org_members_*, org_devices_*: routes, input and
 * capabilities from the operation catalog. Removing a member is decided by the service
 * (AccessPolicy.requireMemberRemoval): leaving needs less than removing someone else.
 */
@ApiTags('organizations')
@ApiBearerAuth()
@ApiSecurity('admin-key')
@Controller()
export class OrgsController {
  constructor(
    private readonly orgs: OrgsService,
    private readonly orgDevices: OrgDevicesService,
  ) {}

  @Operation('org_list')
  list(@CurrentPrincipal() principal: Principal): Promise<OperationResult<'org_list'>> {
    return this.orgs.list(principal);
  }

  @Operation('org_create', { status: 201 })
  create(@CurrentPrincipal() principal: Principal, @Input() body: RouteInput<'org_create'>): Promise<OperationResult<'org_create'>> {
    return this.orgs.create(principal, body.id, body.email);
  }

  @Operation('org_delete')
  delete(@CurrentPrincipal() principal: Principal, @Authorized() { org }: AuthorizedTargets): Promise<OperationResult<'org_delete'>> {
    return this.orgs.delete(principal, org!);
  }

  @Operation('org_update')
  update(@CurrentPrincipal() principal: Principal, @Authorized() { org }: AuthorizedTargets, @Input() body: RouteInput<'org_update'>): Promise<OperationResult<'org_update'>> {
    return this.orgs.rename(principal, org!, body.new_id);
  }

  @Operation('org_members_list')
  members(@Authorized() { org }: AuthorizedTargets): Promise<OperationResult<'org_members_list'>> {
    return this.orgs.members(org!);
  }

  @Operation('org_members_add')
  addMember(@CurrentPrincipal() principal: Principal, @Authorized() { org }: AuthorizedTargets, @Input() body: RouteInput<'org_members_add'>): Promise<OperationResult<'org_members_add'>> {
    return this.orgs.addMember(principal, org!, body.email, body.role);
  }

  @Operation('org_members_remove', { authorizedBy: 'service' })
  removeMember(@CurrentPrincipal() principal: Principal, @Input() input: RouteInput<'org_members_remove'>): Promise<OperationResult<'org_members_remove'>> {
    return this.orgs.removeMember(principal, input.org_id, input.email);
  }

  @Operation('org_devices_list')
  @UsersOnly()
  devices(@Authorized() { org }: AuthorizedTargets): Promise<OperationResult<'org_devices_list'>> {
    return this.orgDevices.list(org!);
  }

  @Operation('org_devices_add')
  @UsersOnly()
  addDevice(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { org, device }: AuthorizedTargets): Promise<OperationResult<'org_devices_add'>> {
    return this.orgDevices.add(principal, org!, device!.device);
  }

  @Operation('org_devices_remove')
  @UsersOnly()
  removeDevice(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { org, device }: AuthorizedTargets): Promise<OperationResult<'org_devices_remove'>> {
    return this.orgDevices.remove(principal, org!, device!.device);
  }
}
