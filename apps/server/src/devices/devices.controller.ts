import { Controller } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CatalogRouteInput, OperationResult, RegistrationBulkRejectResult, SubRouteInput, SubRouteResult } from '@svc/common';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { RegistrationsService } from '../registrations/registrations.service';
import { CheckedInput } from '../common/route-input.decorator';
import { CatalogRoute, Input, OperationRoute } from '../authorization/operation.decorator';
import { DevicesService } from './devices.service';

/**
 * The device routes that are no operation of their own: one device's status and audit log by path
 * (device_status's and device_audit_logs's `one` routes) and the bulk reject. The operations are
 * DevicesService's and RegistrationsService's `@Handles`.
 */
@ApiTags('devices')
@ApiBearerAuth()
@UsersOnly()
@Controller()
export class DevicesController {
  constructor(
    private readonly devices: DevicesService,
    private readonly registrations: RegistrationsService,
  ) {}

  /** Rejects every pending registration request the caller may decide that matches the filters (a flood). */
  @CatalogRoute('registrations_reject')
  rejectRegistrations(@CurrentPrincipal() principal: UserPrincipal, @CheckedInput('registrations_reject') body: CatalogRouteInput<'registrations_reject'>): Promise<RegistrationBulkRejectResult> {
    return this.registrations.rejectMatching(principal, body);
  }

  /** device_status of one device by path; the service decides, as for the [Batch] route. */
  @OperationRoute('device_status.one', { authorizedBy: 'service' })
  status(@CurrentPrincipal() principal: UserPrincipal, @Input() input: SubRouteInput<'device_status.one'>): Promise<SubRouteResult<'device_status.one'>> {
    return this.devices.status(principal, input.device);
  }

  /** device_audit_logs of one device by path; the service decides (a removed device's history stays its former owner's). */
  @OperationRoute('device_audit_logs.one', { authorizedBy: 'service' })
  auditLogs(@CurrentPrincipal() principal: UserPrincipal, @Input() input: SubRouteInput<'device_audit_logs.one'>): Promise<OperationResult<'device_audit_logs'>> {
    return this.devices.auditLogs(principal, input);
  }
}
