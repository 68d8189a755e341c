import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { InvalidInputError } from '@svc/common';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { RegistrationsService } from '../registrations/registrations.service';
import { ApproveRegistrationInput, RejectInput } from '../registrations/dto';
import { DevicesService } from './devices.service';
import { AuditLogsInput, AuditLogsQuery, BatchTargetInput } from './dto';

/** devices_list, devices_approve, devices_reject, device_status, device_audit_logs. */
@ApiTags('devices')
@ApiBearerAuth()
@UsersOnly()
@Controller('devices')
export class DevicesController {
  constructor(
    private readonly devices: DevicesService,
    private readonly registrations: RegistrationsService,
  ) {}

  @Get()
  list(@CurrentPrincipal() principal: UserPrincipal) {
    return this.devices.list(principal);
  }

  @Post('approve')
  @HttpCode(200)
  approve(@CurrentPrincipal() principal: UserPrincipal, @Body() body: ApproveRegistrationInput) {
    if ((body.request_id === undefined) === (body.device === undefined)) throw new InvalidInputError('Give exactly one of request_id or device');
    return this.registrations.approve(principal, (body.request_id ?? body.device)!);
  }

  @Post('reject')
  @HttpCode(200)
  reject(@CurrentPrincipal() principal: UserPrincipal, @Body() body: RejectInput) {
    return this.devices.reject(principal, body.device);
  }

  @Post('status')
  @HttpCode(200)
  statusBatch(@CurrentPrincipal() principal: UserPrincipal, @Body() body: BatchTargetInput) {
    return this.devices.statusOf(principal, body);
  }

  @Get(':device/status')
  status(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string) {
    return this.devices.status(principal, device);
  }

  @Post('audit-logs')
  @HttpCode(200)
  auditLogsBatch(@CurrentPrincipal() principal: UserPrincipal, @Body() body: AuditLogsInput) {
    return this.devices.auditLogs(principal, body);
  }

  @Get(':device/audit-logs')
  auditLogs(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string, @Query() query: AuditLogsQuery) {
    return this.devices.auditLogs(principal, { ...query, device });
  }
}
