import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import type { OperationResult } from '@svc/common';
import { OperationResponse } from '../common/operation-response.decorator';
import { ApiBearerAuth, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AdminOnly, CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { Principal, UserPrincipal } from '../auth/principal';
import { OrgsService } from './orgs.service';
import { OrgDevicesService } from './org-devices.service';
import { AddMemberInput, CreateOrgInput, OrgDeviceInput, UpdateOrgInput } from './dto';

/** org_list, org_create, org_delete, org_update, org_members_*, org_devices_*. */
@ApiTags('organizations')
@ApiBearerAuth()
@ApiSecurity('admin-key')
@Controller('orgs')
export class OrgsController {
  constructor(
    private readonly orgs: OrgsService,
    private readonly orgDevices: OrgDevicesService,
  ) {}

  @Get()
  @OperationResponse('org_list')
  list(@CurrentPrincipal() principal: Principal): Promise<OperationResult<'org_list'>> {
    return this.orgs.list(principal);
  }

  @Post()
  @AdminOnly()
  @OperationResponse('org_create', 201)
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateOrgInput): Promise<OperationResult<'org_create'>> {
    return this.orgs.create(principal, body.id, body.email);
  }

  @Delete(':id')
  @OperationResponse('org_delete')
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<OperationResult<'org_delete'>> {
    return this.orgs.delete(principal, id);
  }

  @Patch(':id')
  @OperationResponse('org_update')
  update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: UpdateOrgInput): Promise<OperationResult<'org_update'>> {
    return this.orgs.rename(principal, id, body.new_id);
  }

  @Get(':id/members')
  @OperationResponse('org_members_list')
  members(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<OperationResult<'org_members_list'>> {
    return this.orgs.members(principal, id);
  }

  @Post(':id/members')
  @HttpCode(200)
  @OperationResponse('org_members_add')
  addMember(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: AddMemberInput): Promise<OperationResult<'org_members_add'>> {
    return this.orgs.addMember(principal, id, body.email, body.role);
  }

  @Delete(':id/members/:email')
  @OperationResponse('org_members_remove')
  removeMember(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Param('email') email: string): Promise<OperationResult<'org_members_remove'>> {
    return this.orgs.removeMember(principal, id, email);
  }

  @Get(':id/devices')
  @UsersOnly()
  @OperationResponse('org_devices_list')
  devices(@CurrentPrincipal() principal: UserPrincipal, @Param('id') id: string): Promise<OperationResult<'org_devices_list'>> {
    return this.orgDevices.list(principal, id);
  }

  @Post(':id/devices')
  @UsersOnly()
  @HttpCode(200)
  @OperationResponse('org_devices_add')
  addDevice(@CurrentPrincipal() principal: UserPrincipal, @Param('id') id: string, @Body() body: OrgDeviceInput): Promise<OperationResult<'org_devices_add'>> {
    return this.orgDevices.add(principal, id, body.device);
  }

  @Delete(':id/devices/:device')
  @UsersOnly()
  @OperationResponse('org_devices_remove')
  removeDevice(@CurrentPrincipal() principal: UserPrincipal, @Param('id') id: string, @Param('device') device: string): Promise<OperationResult<'org_devices_remove'>> {
    return this.orgDevices.remove(principal, id, device);
  }
}
