import { Injectable } from '@nestjs/common';
import { ConflictError, ForbiddenError, NotFoundError, OrgDeviceItem, orgScope, userScope } from '@svc/common';
import { DevicesRepository } from '../storage/repositories/devices.repository';
import { callerAccess } from '../storage/repositories/device-access-scope';
import { AuditService } from '../audit/audit.service';
import { DeviceResolver } from '../devices/device-resolver.service';
import { DevicesService } from '../devices/devices.service';
import { AccessService } from '../access/access.service';
import type { UserPrincipal } from '../auth/principal';
import { OrgsService } from './orgs.service';

/**
 * Moving devices into and out of organizations.
 * - add: the organization becomes the owner. The caller must be an admin of the organization and
 *   own the device (personally, or as an admin of its owning organization): a share, even an
 *   admin one, does not allow taking a device away from its owner. An existing share with the
 *   organization is folded into ownership.
 * - remove: an organization-owned device passes to the calling admin personally; a device that
 *   was only shared with the organization loses that share.
 */
@Injectable()
export class OrgDevicesService {
  constructor(
    private readonly orgs: OrgsService,
    private readonly devices: DevicesRepository,
    private readonly resolver: DeviceResolver,
    private readonly deviceViews: DevicesService,
    private readonly access: AccessService,
    private readonly audit: AuditService,
  ) {}

  async list(principal: UserPrincipal, orgId: string): Promise<OrgDeviceItem[]> {
    await this.orgs.authorize(principal, orgId, 'member');
    const devices = await this.devices.list(callerAccess([orgScope(orgId)]));
    return devices.map((d) => {
      const { id, name, status } = this.deviceViews.listItem(d);
      return { id, name, status: status === 'online' ? 'online' : 'offline' };
    });
  }

  async add(principal: UserPrincipal, orgId: string, ref: string): Promise<{ status: 'added' }> {
    await this.requireOrgAdmin(principal, orgId);
    const { device } = await this.resolver.resolve(principal, ref, 'device:manage');
    const scope = orgScope(orgId);
    if (device.ownerScope === scope) throw new ConflictError(`Device already belongs to ${orgId}`);
    if (!this.isOwner(principal, device.ownerScope)) {
      throw new ForbiddenError('Access denied: only the owner of a device (or an admin of its owning organization) may move it into an organization');
    }
    const shares = device.shares.filter((s) => s.scope !== scope);
    for (const share of shares) {
      try {
        await this.access.checkCrossOrgSharing({ ownerScope: scope }, share.scope);
      } catch {
        throw new ConflictError(`Device is shared with ${share.scope}, outside ${orgId}; remove that share first (cross-organization sharing is disabled)`);
      }
    }
    await this.devices.update(callerAccess(principal.scopes), device.id, { ownerScope: scope, shares, allowedScopes: shares.map((s) => s.scope) });
    await this.audit.record(principal, 'device.moved_to_org', { deviceId: device.id, orgId, details: `moved from ${device.ownerScope} to ${scope}` });
    return { status: 'added' };
  }

  async remove(principal: UserPrincipal, orgId: string, ref: string): Promise<{ status: 'removed' }> {
    await this.requireOrgAdmin(principal, orgId);
    const scope = orgScope(orgId);
    const { device } = await this.resolver.resolve(principal, ref, 'device:view');
    const access = callerAccess(principal.scopes);
    if (device.ownerScope === scope) {
      await this.devices.update(access, device.id, { ownerScope: userScope(principal.email) });
    } else if (device.shares.some((s) => s.scope === scope)) {
      const shares = device.shares.filter((s) => s.scope !== scope);
      await this.devices.update(access, device.id, { shares, allowedScopes: shares.map((s) => s.scope) });
    } else {
      throw new NotFoundError(`Device is not in organization ${orgId}`);
    }
    await this.audit.record(principal, 'device.removed_from_org', { deviceId: device.id, orgId, details: `removed from ${scope}` });
    return { status: 'removed' };
  }

  private isOwner(principal: UserPrincipal, ownerScope: string): boolean {
    if (ownerScope === userScope(principal.email)) return true;
    return principal.memberships.some((m) => m.role === 'admin' && orgScope(m.orgId) === ownerScope);
  }

  /** Device moves need a real organization admin; server administrators hold no device rights. */
  private async requireOrgAdmin(principal: UserPrincipal, orgId: string): Promise<void> {
    await this.orgs.authorize(principal, orgId, 'member');
    if (!principal.memberships.some((m) => m.orgId === orgId && m.role === 'admin')) {
      throw new ForbiddenError('Access denied: organization admin role required');
    }
  }
}
