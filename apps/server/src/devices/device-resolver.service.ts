import { Injectable } from '@nestjs/common';
import { Capability, ConflictError, DeviceNotFoundError, effectiveDeviceRole, ForbiddenError, OrgRole, roleAllows, toToolRole } from '@svc/common';
import { DevicesRepository } from '../storage/repositories/devices.repository';
import { callerAccess } from '../storage/repositories/device-access-scope';
import { DeviceRecord } from '../storage/records';
import type { UserPrincipal } from '../auth/principal';

export interface ResolvedDevice {
  device: DeviceRecord;
  role: OrgRole;
}

/**
 * Turns a `device` parameter (id or name) into a device the caller may act on. A device outside
 * the caller's scopes and a device that does not exist give the same DeviceNotFoundError through
 * the same single scoped query; a reachable device whose role lacks the capability is Forbidden.
 */
@Injectable()
export class DeviceResolver {
  constructor(private readonly devices: DevicesRepository) {}

  async resolve(principal: UserPrincipal, ref: string, capability: Capability): Promise<ResolvedDevice> {
    const matches = await this.devices.findByIdOrName(callerAccess(principal.scopes), ref);
    if (matches.length === 0) throw new DeviceNotFoundError();
    if (matches.length > 1) throw new ConflictError(`More than one device is named "${ref}"; use the device id`);
    const device = matches[0];
    const role = effectiveDeviceRole(principal, device);
    if (role === null) throw new DeviceNotFoundError();
    if (!roleAllows(role, capability)) throw new ForbiddenError(`Access denied: your role (${toToolRole(role)}) does not allow ${capability}`);
    return { device, role };
  }
}
