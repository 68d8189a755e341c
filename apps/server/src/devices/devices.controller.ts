import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { OperationResponse, RouteResponse } from '../common/operation-response.decorator';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { InvalidInputError, OperationResult, RouteResults } from '@svc/common';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { RegistrationsService } from '../registrations/registrations.service';
import { ApproveRegistrationInput, RejectInput, RejectRegistrationsInput } from '../registrations/dto';
import { Authorized, Operation } from '../authorization/operation.decorator';
import type { AuthorizedTargets } from '../authorization/operation-guard';
import { DevicesService } from './devices.service';
import { AuditLogsInput, AuditLogsQuery, BatchTargetInput, ListDevicesQuery, RenameDeviceInput } from './dto';

/** devices_list, devices_approve, devices_reject, device_status, device_audit_logs, and the extension device_rename. */
@ApiTags('devices')
@ApiBearerAuth()
@UsersOnly()
@Controller()
export class DevicesController {
  constructor(
    private readonly devices: DevicesService,
    private readonly registrations: RegistrationsService,
  ) {}

  @Get('devices')
  @OperationResponse('devices_list', 200, 'devices_list_page')
  list(@CurrentPrincipal() principal: UserPrincipal, @Query() query: ListDevicesQuery): Promise<OperationResult<'devices_list'> | RouteResults['devices_list_page']> {
    return this.devices.list(principal, query);
  }

  @Post('devices/approve')
  @HttpCode(200)
  @OperationResponse('devices_approve')
  approve(@CurrentPrincipal() principal: UserPrincipal, @Body() body: ApproveRegistrationInput): Promise<OperationResult<'devices_approve'>> {
    if ((body.request_id === undefined) === (body.device === undefined)) throw new InvalidInputError('Give exactly one of request_id or device');
    return this.registrations.approve(principal, (body.request_id ?? body.device)!);
  }

  @Post('devices/reject')
  @HttpCode(200)
  @OperationResponse('devices_reject')
  reject(@CurrentPrincipal() principal: UserPrincipal, @Body() body: RejectInput): Promise<OperationResult<'devices_reject'>> {
    return this.devices.reject(principal, body.device);
  }

  @Operation('device_rename')
  rename(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Body() body: RenameDeviceInput): Promise<OperationResult<'device_rename'>> {
    return this.devices.rename(principal, device!.device, body.name);
  }

  /** Rejects every pending registration request the caller may decide that matches the filters (a flood). */
  @Post('devices/registrations/reject')
  @HttpCode(200)
  @RouteResponse('registrations_reject')
  rejectRegistrations(@CurrentPrincipal() principal: UserPrincipal, @Body() body: RejectRegistrationsInput): Promise<RouteResults['registrations_reject']> {
    return this.registrations.rejectMatching(principal, body);
  }

  @Post('devices/status')
  @HttpCode(200)
  @OperationResponse('device_status')
  statusBatch(@CurrentPrincipal() principal: UserPrincipal, @Body() body: BatchTargetInput): Promise<OperationResult<'device_status'>> {
    return this.devices.statusOf(principal, body);
  }

  @Get('devices/:device/status')
  @RouteResponse('device_status_one')
  status(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string): Promise<RouteResults['device_status_one']> {
    return this.devices.status(principal, device);
  }

  @Post('devices/audit-logs')
  @HttpCode(200)
  @OperationResponse('device_audit_logs')
  auditLogsBatch(@CurrentPrincipal() principal: UserPrincipal, @Body() body: AuditLogsInput): Promise<OperationResult<'device_audit_logs'>> {
    return this.devices.auditLogs(principal, body);
  }

  @Get('devices/:device/audit-logs')
  @RouteResponse('device_audit_logs_one')
  auditLogs(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string, @Query() query: AuditLogsQuery): Promise<OperationResult<'device_audit_logs'>> {
    return this.devices.auditLogs(principal, { ...query, device });
  }
}
