import { Injectable } from '@nestjs/common';
import { NotFoundError, OrgDeviceItem, orgScope, userScope } from '@svc/common';
import { DeviceRecords } from '../devices/records/device-records';
import { callerAccess } from '../devices/records/device-access-scope';
import { AuditService } from '../audit/audit.service';
import { AccessPolicy } from '../authorization/access-policy.service';
import { DevicesService } from '../devices/devices.service';
import type { UserPrincipal } from '../auth/principal';
import type { DeviceRecord, OrgRecord } from '../storage/records';
import { FleetEvents } from '../events/fleet-events';
import { Handles, OperationCall } from '../authorization/catalog-controller';

/**
 * Moving devices into and out of organizations. Both directions that change the owner go through
 * `AccessPolicy.authorizeOwnerChange` (owner only, shares reset), like a re-registration does.
 * - add: the organization becomes the owner. The caller must be an admin of the organization and
 *   own the device (personally, or as an admin of its owning organization).
 * - remove: an organization-owned device passes to the calling admin personally; a device that
 *   was only shared with the organization loses that share (no owner change).
 */
@Injectable()
export class OrgDevicesService {
  constructor(
    private readonly policy: AccessPolicy,
    private readonly devices: DeviceRecords,
    private readonly deviceViews: DevicesService,
    private readonly audit: AuditService,
    private readonly events: FleetEvents,
  ) {}

  @Handles('org_devices_list')
  async list({ authorized }: OperationCall<'org_devices_list'>): Promise<OrgDeviceItem[]> {
    const devices = await this.deviceViews.listItems(callerAccess([orgScope(authorized.org!.id)]));
    return devices.map(({ id, name, status }) => ({ id, name, status: status === 'online' ? 'online' : 'offline' }));
  }

  /** `org` and `device` as AccessPolicy authorized them for org_devices_add (OperationGuard). */
  @Handles('org_devices_add')
  async add({ principal, authorized }: OperationCall<'org_devices_add'>): Promise<{ status: 'added' }> {
    const [orgId, device] = [authorized.org!.id, authorized.device!.device];
    const scope = orgScope(orgId);
    const change = await this.policy.authorizeOwnerChange(principal, device, scope);
    await this.devices.update(callerAccess(principal.scopes), device.id, change);
    await this.audit.record(principal, 'device.moved_to_org', { deviceId: device.id, orgId, details: `moved from ${device.ownerScope} to ${scope}; shares reset` });
    this.ownerChanged(device, scope);
    return { status: 'added' };
  }

  /** `org` and `device` as AccessPolicy authorized them for org_devices_remove (OperationGuard). */
  @Handles('org_devices_remove')
  async remove({ principal, authorized }: OperationCall<'org_devices_remove'>): Promise<{ status: 'removed' }> {
    const [orgId, device] = [authorized.org!.id, authorized.device!.device];
    const scope = orgScope(orgId);
    const access = callerAccess(principal.scopes);
    if (device.ownerScope === scope) {
      const me = userScope(principal.email);
      await this.devices.update(access, device.id, await this.policy.authorizeOwnerChange(principal, device, me));
      await this.audit.record(principal, 'device.removed_from_org', { deviceId: device.id, orgId, details: `moved from ${scope} to ${me}; shares reset` });
      this.ownerChanged(device, me);
    } else if (device.shares.some((s) => s.scope === scope)) {
      await this.devices.setShares(access, device, device.shares.filter((s) => s.scope !== scope));
      await this.audit.record(principal, 'device.removed_from_org', { deviceId: device.id, orgId, details: `share with ${scope} removed` });
      this.events.emit({ type: 'access.changed', audience: { deviceId: device.id }, deviceId: device.id, deviceName: device.name, details: { change: 'share_removed', scope } });
    } else {
      throw new NotFoundError(`Device is not in organization ${orgId}`);
    }
    return { status: 'removed' };
  }

  private ownerChanged(device: DeviceRecord, ownerScope: string): void {
    this.events.emit({ type: 'access.changed', audience: { deviceId: device.id }, deviceId: device.id, deviceName: device.name, details: { change: 'owner_changed', owner_scope: ownerScope } });
  }
}
