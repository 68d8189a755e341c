import { Inject, Injectable } from '@nestjs/common';
import { AccessEntry, ForbiddenError, InvalidInputError, NotFoundError, parseScope, scopeForPrincipalName, toOrgRole, toToolRole, ToolRole, ConflictError } from '@svc/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { DevicesRepository } from '../storage/repositories/devices.repository';
import { MembershipsRepository } from '../storage/repositories/memberships.repository';
import { OrgsRepository } from '../storage/repositories/orgs.repository';
import { callerAccess } from '../storage/repositories/device-access-scope';
import { DeviceRecord, DeviceShare } from '../storage/records';
import { AuditService } from '../audit/audit.service';
import { DeviceResolver } from '../devices/device-resolver.service';
import type { UserPrincipal } from '../auth/principal';

/** Sharing a device with users and organizations (`allowed_scopes` with a role each). */
@Injectable()
export class AccessService {
  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly devices: DevicesRepository,
    private readonly memberships: MembershipsRepository,
    private readonly orgs: OrgsRepository,
    private readonly resolver: DeviceResolver,
    private readonly audit: AuditService,
  ) {}

  async list(principal: UserPrincipal, ref: string): Promise<AccessEntry[]> {
    const { device } = await this.resolver.resolve(principal, ref, 'device:view');
    return device.shares.map(toAccessEntry);
  }

  async add(principal: UserPrincipal, ref: string, emailOrOrgId: string, role: ToolRole): Promise<{ status: 'added' }> {
    const scope = targetScope(emailOrOrgId);
    const { device } = await this.resolver.resolve(principal, ref, 'device:manage');
    if (scope === device.ownerScope) throw new ConflictError(`${emailOrOrgId} already owns this device`);
    const target = parseScope(scope)!;
    // A share with an id nobody owns yet would go to whoever creates that organization later.
    if (target.kind === 'org' && !(await this.orgs.findById(target.orgId))) throw new NotFoundError('Organization not found');
    await this.checkCrossOrgSharing(device, scope);
    const shares = [...device.shares.filter((s) => s.scope !== scope), { scope, role: toOrgRole(role) }];
    await this.saveShares(principal, device, shares);
    await this.audit.record(principal, 'device.access_added', { deviceId: device.id, details: `shared with ${scope} as ${role}` });
    return { status: 'added' };
  }

  async remove(principal: UserPrincipal, ref: string, emailOrOrgId: string): Promise<{ status: 'removed' }> {
    const scope = targetScope(emailOrOrgId);
    const { device } = await this.resolver.resolve(principal, ref, 'device:manage');
    if (!device.shares.some((s) => s.scope === scope)) throw new NotFoundError(`${emailOrOrgId} has no access entry on this device`);
    await this.saveShares(principal, device, device.shares.filter((s) => s.scope !== scope));
    await this.audit.record(principal, 'device.access_removed', { deviceId: device.id, details: `unshared from ${scope}` });
    return { status: 'removed' };
  }

  /**
   * With ALLOW_CROSS_ORG_DEVICE_SHARING=false an organization's device may only be shared with
   * that organization's members.
   */
  async checkCrossOrgSharing(device: Pick<DeviceRecord, 'ownerScope'>, scope: string): Promise<void> {
    if (this.config.allowCrossOrgDeviceSharing) return;
    const owner = parseScope(device.ownerScope);
    if (owner?.kind !== 'org') return;
    const target = parseScope(scope)!;
    const inside = target.kind === 'user' && (await this.memberships.find(owner.orgId, target.email)) !== null;
    if (!inside) throw new ForbiddenError(`Access denied: ${scope} is outside organization ${owner.orgId} and cross-organization sharing is disabled`);
  }

  private async saveShares(principal: UserPrincipal, device: DeviceRecord, shares: DeviceShare[]): Promise<void> {
    await this.devices.update(callerAccess(principal.scopes), device.id, { shares, allowedScopes: shares.map((s) => s.scope) });
  }
}

function targetScope(emailOrOrgId: string): string {
  const scope = scopeForPrincipalName(emailOrOrgId ?? '');
  if (!scope) throw new InvalidInputError('email_or_org_id must be an e-mail address or an organization id');
  return scope;
}

export function toAccessEntry(share: DeviceShare): AccessEntry {
  const parsed = parseScope(share.scope)!;
  const role = toToolRole(share.role);
  return parsed.kind === 'user' ? { email: parsed.email, role } : { org_id: parsed.orgId, role };
}
