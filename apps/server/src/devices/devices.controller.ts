import { Controller, HttpCode, Post } from '@nestjs/common';
import { RouteResponse } from '../common/operation-response.decorator';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { OperationResult, RouteInput, RouteResults, SubRouteInput } from '@svc/common';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { RegistrationsService } from '../registrations/registrations.service';
import type { RejectRegistrationsInput } from '../registrations/registrations.service';
import { CheckedInput, DocumentedInput } from '../common/route-input.decorator';
import { Authorized, Input, Operation, OperationRoute } from '../authorization/operation.decorator';
import type { AuthorizedTargets } from '../authorization/operation-guard';
import { DevicesService } from './devices.service';

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

  @Operation('devices_list', { or: 'devices_list_page' })
  list(@CurrentPrincipal() principal: UserPrincipal, @Input() input: RouteInput<'devices_list'>): Promise<OperationResult<'devices_list'> | RouteResults['devices_list_page']> {
    return this.devices.list(principal, input);
  }

  /** By `device` or, as older callers send it, `request_id`. */
  @Operation('devices_approve', { authorizedBy: 'service' })
  approve(@CurrentPrincipal() principal: UserPrincipal, @Input() input: RouteInput<'devices_approve'>): Promise<OperationResult<'devices_approve'>> {
    return this.registrations.approve(principal, (input.device ?? input.request_id)!);
  }

  @Operation('devices_reject', { authorizedBy: 'service' })
  reject(@CurrentPrincipal() principal: UserPrincipal, @Input() input: RouteInput<'devices_reject'>): Promise<OperationResult<'devices_reject'>> {
    return this.devices.reject(principal, input.device);
  }

  @Operation('device_rename')
  rename(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Input() input: RouteInput<'device_rename'>): Promise<OperationResult<'device_rename'>> {
    return this.devices.rename(principal, device!.device, input.name);
  }

  /** Rejects every pending registration request the caller may decide that matches the filters (a flood). */
  @Post('devices/registrations/reject')
  @HttpCode(200)
  @RouteResponse('registrations_reject')
  @DocumentedInput('registrations_reject', 'body')
  rejectRegistrations(@CurrentPrincipal() principal: UserPrincipal, @CheckedInput('registrations_reject') body: RejectRegistrationsInput): Promise<RouteResults['registrations_reject']> {
    return this.registrations.rejectMatching(principal, body);
  }

  @Operation('device_status')
  statusBatch(@CurrentPrincipal() principal: UserPrincipal, @Input() input: RouteInput<'device_status'>): Promise<OperationResult<'device_status'>> {
    return this.devices.statusOf(principal, input);
  }

  /** device_status of one device by path; the service decides, as for the [Batch] route. */
  @OperationRoute('device_status.one', { authorizedBy: 'service' })
  @RouteResponse('device_status_one')
  status(@CurrentPrincipal() principal: UserPrincipal, @Input() input: SubRouteInput<'device_status.one'>): Promise<RouteResults['device_status_one']> {
    return this.devices.status(principal, input.device);
  }

  @Operation('device_audit_logs')
  auditLogsBatch(@CurrentPrincipal() principal: UserPrincipal, @Input() input: RouteInput<'device_audit_logs'>): Promise<OperationResult<'device_audit_logs'>> {
    return this.devices.auditLogs(principal, input);
  }

  /** device_audit_logs of one device by path; the service decides (a removed device's history stays its former owner's). */
  @OperationRoute('device_audit_logs.one', { authorizedBy: 'service' })
  @RouteResponse('device_audit_logs_one')
  auditLogs(@CurrentPrincipal() principal: UserPrincipal, @Input() input: SubRouteInput<'device_audit_logs.one'>): Promise<OperationResult<'device_audit_logs'>> {
    return this.devices.auditLogs(principal, input);
  }
}
