import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { RouteResults, toToolRole } from '@svc/common';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { AccessPolicy } from '../authorization/access-policy.service';
import { RouteResponse } from '../common/operation-response.decorator';

/**
 * GET /devices/{device}/capabilities: what the caller may do with a device, as AccessPolicy
 * decides it, so the dashboard shows only controls that will work (the routes refuse the rest anyway).
 * A device the caller cannot see is not found.
 */
@ApiTags('device access')
@ApiBearerAuth()
@UsersOnly()
@Controller()
export class DeviceCapabilitiesController {
  constructor(private readonly policy: AccessPolicy) {}

  @Get('devices/:device/capabilities')
  @RouteResponse('device_capabilities_one')
  async capabilities(@CurrentPrincipal() principal: UserPrincipal, @Param('device') ref: string): Promise<RouteResults['device_capabilities_one']> {
    const access = await this.policy.requireDevice(principal, ref, 'device:view');
    return { device_id: access.device.id, role: toToolRole(access.role), owner: access.owner, capabilities: this.policy.capabilitiesOn(access) };
  }
}
