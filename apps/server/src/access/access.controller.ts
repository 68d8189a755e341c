import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import type { OperationResult } from '@svc/common';
import { OperationResponse } from '../common/operation-response.decorator';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { AccessService } from './access.service';
import { AddAccessInput } from './dto';

/** device_access_list, device_access_add, device_access_remove. */
@ApiTags('device access')
@ApiBearerAuth()
@UsersOnly()
@Controller('devices/:device/access')
export class AccessController {
  constructor(private readonly access: AccessService) {}

  @Get()
  @OperationResponse('device_access_list')
  list(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string): Promise<OperationResult<'device_access_list'>> {
    return this.access.list(principal, device);
  }

  @Post()
  @HttpCode(200)
  @OperationResponse('device_access_add')
  add(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string, @Body() body: AddAccessInput): Promise<OperationResult<'device_access_add'>> {
    return this.access.add(principal, device, body.email_or_org_id, body.role);
  }

  @Delete(':emailOrOrgId')
  @OperationResponse('device_access_remove')
  remove(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string, @Param('emailOrOrgId') emailOrOrgId: string): Promise<OperationResult<'device_access_remove'>> {
    return this.access.remove(principal, device, emailOrOrgId);
  }
}
