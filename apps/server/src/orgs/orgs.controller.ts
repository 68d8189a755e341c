import { Body, Controller, Delete, Param } from '@nestjs/common';
import type { OperationResult } from '@svc/common';
import { OperationResponse } from '../common/operation-response.decorator';
import { ApiBearerAuth, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { Principal, UserPrincipal } from '../auth/principal';
import { Authorized, Operation } from '../authorization/operation.decorator';
import type { AuthorizedTargets } from '../authorization/operation-guard';
import { OrgsService } from './orgs.service';
import { OrgDevicesService } from './org-devices.service';
import { AddMemberInput, CreateOrgInput, OrgDeviceInput, UpdateOrgInput } from './dto';

/**
 * org_list, org_create, org_delete, org_update, org_members_*, org_devices_*: routes and
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
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateOrgInput): Promise<OperationResult<'org_create'>> {
    return this.orgs.create(principal, body.id, body.email);
  }

  @Operation('org_delete')
  delete(@CurrentPrincipal() principal: Principal, @Authorized() { org }: AuthorizedTargets): Promise<OperationResult<'org_delete'>> {
    return this.orgs.delete(principal, org!);
  }

  @Operation('org_update')
  update(@CurrentPrincipal() principal: Principal, @Authorized() { org }: AuthorizedTargets, @Body() body: UpdateOrgInput): Promise<OperationResult<'org_update'>> {
    return this.orgs.rename(principal, org!, body.new_id);
  }

  @Operation('org_members_list')
  members(@Authorized() { org }: AuthorizedTargets): Promise<OperationResult<'org_members_list'>> {
    return this.orgs.members(org!);
  }

  @Operation('org_members_add')
  addMember(@CurrentPrincipal() principal: Principal, @Authorized() { org }: AuthorizedTargets, @Body() body: AddMemberInput): Promise<OperationResult<'org_members_add'>> {
    return this.orgs.addMember(principal, org!, body.email, body.role);
  }

  @Delete('orgs/:org_id/members/:email')
  @OperationResponse('org_members_remove')
  removeMember(@CurrentPrincipal() principal: Principal, @Param('org_id') orgId: string, @Param('email') email: string): Promise<OperationResult<'org_members_remove'>> {
    return this.orgs.removeMember(principal, orgId, email);
  }

  @Operation('org_devices_list')
  @UsersOnly()
  devices(@Authorized() { org }: AuthorizedTargets): Promise<OperationResult<'org_devices_list'>> {
    return this.orgDevices.list(org!);
  }

  @Operation('org_devices_add')
  @UsersOnly()
  addDevice(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { org, device }: AuthorizedTargets, @Body() _body: OrgDeviceInput): Promise<OperationResult<'org_devices_add'>> {
    return this.orgDevices.add(principal, org!, device!.device);
  }

  @Operation('org_devices_remove')
  @UsersOnly()
  removeDevice(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { org, device }: AuthorizedTargets): Promise<OperationResult<'org_devices_remove'>> {
    return this.orgDevices.remove(principal, org!, device!.device);
  }
}
