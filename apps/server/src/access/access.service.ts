import { Injectable } from '@nestjs/common';
import { AccessEntry, capabilityOf, ConflictError, InvalidInputError, LIMITS, NotFoundError, OperationResults, parseScope, scopeForPrincipalName, toOrgRole, toToolRole, ToolRole } from '@svc/common';
import { DeviceRecords } from '../devices/records/device-records';
import { callerAccess } from '../devices/records/device-access-scope';
import { LOST_RACE, retryLostRaces } from '../devices/records/lost-races';
import { OrgRecords } from '../orgs/records/org-records';
import { DeviceRecord, DeviceShare } from '../storage/records';
import { AuditService } from '../audit/audit.service';
import { AccessPolicy } from '../authorization/access-policy.service';
import type { UserPrincipal } from '../auth/principal';
import { FleetEvents } from '../events/fleet-events';
import { Handles, OperationCall } from '../authorization/catalog-controller';

/** Sharing a device with users and organizations (`allowed_scopes` with a role each): device_access_list, _add, _remove, served from the catalog. */
@Injectable()
export class AccessService {
  constructor(
    private readonly devices: DeviceRecords,
    private readonly orgs: OrgRecords,
    private readonly policy: AccessPolicy,
    private readonly audit: AuditService,
    private readonly events: FleetEvents,
  ) {}

  /** The device as AccessPolicy authorized it for device_access_list (OperationGuard). */
  @Handles('device_access_list')
  list({ authorized }: OperationCall<'device_access_list'>): AccessEntry[] {
    return authorized.device!.device.shares.map(toAccessEntry);
  }

  /**
   * Each attempt reads the device, checks and writes with a compare-and-set, so two concurrent
   * edits never overwrite each other: the loser reads again and decides again (checks included:
   * the route's guard decided on the device as it was before the first attempt).
   */
  /** What the caller may do with the device OperationGuard authorized (device:view), so a client shows only the controls that will work. */
  @Handles('device_capabilities')
  capabilities({ authorized }: OperationCall<'device_capabilities'>): OperationResults['device_capabilities'] {
    const access = authorized.device!;
    return { device_id: access.device.id, role: toToolRole(access.role), owner: access.owner, capabilities: this.policy.capabilitiesOn(access) };
  }

  @Handles('device_access_add')
  addAccess({ principal, input }: OperationCall<'device_access_add'>): Promise<{ status: 'added' }> {
    return this.add(principal, input.device, input.email_or_org_id, input.role);
  }

  @Handles('device_access_remove')
  removeAccess({ principal, input }: OperationCall<'device_access_remove'>): Promise<{ status: 'removed' }> {
    return this.remove(principal, input.device, input.email_or_org_id);
  }

  async add(principal: UserPrincipal, ref: string, emailOrOrgId: string, role: ToolRole): Promise<{ status: 'added' }> {
    const scope = targetScope(emailOrOrgId);
    const deviceId = await retryLostRaces(async () => {
      const { device } = await this.policy.requireDevice(principal, ref, capabilityOf('device_access_add'));
      if (scope === device.ownerScope) throw new ConflictError(`${emailOrOrgId} already owns this device`);
      const target = parseScope(scope)!;
      // A share with an id nobody owns yet would go to whoever creates that organization later.
      if (target.kind === 'org' && !(await this.orgs.findById(target.orgId))) throw new NotFoundError('Organization not found');
      await this.policy.requireShareAllowed(principal, device, scope);
      const others = device.shares.filter((s) => s.scope !== scope);
      if (others.length >= LIMITS.maxSharesPerDevice) {
        throw new ConflictError(`A device can be shared with at most ${LIMITS.maxSharesPerDevice} users and organizations; remove one first`);
      }
      return this.saveShares(principal, device, [...others, { scope, role: toOrgRole(role) }]);
    });
    await this.audit.record(principal, 'device.access_added', { deviceId, details: `shared with ${scope} as ${role}` });
    this.events.emit({ type: 'access.changed', audience: { deviceId }, deviceId, details: { change: 'share_added', scope, role } });
    return { status: 'added' };
  }

  async remove(principal: UserPrincipal, ref: string, emailOrOrgId: string): Promise<{ status: 'removed' }> {
    const scope = targetScope(emailOrOrgId);
    const deviceId = await retryLostRaces(async () => {
      const { device } = await this.policy.requireDevice(principal, ref, capabilityOf('device_access_remove'));
      if (!device.shares.some((s) => s.scope === scope)) throw new NotFoundError(`${emailOrOrgId} has no access entry on this device`);
      return this.saveShares(principal, device, device.shares.filter((s) => s.scope !== scope));
    });
    await this.audit.record(principal, 'device.access_removed', { deviceId, details: `unshared from ${scope}` });
    this.events.emit({ type: 'access.changed', audience: { deviceId }, deviceId, details: { change: 'share_removed', scope } });
    return { status: 'removed' };
  }

  /** The device id once written; LOST_RACE when another write came since `device` was read. */
  private async saveShares(principal: UserPrincipal, device: DeviceRecord, shares: DeviceShare[]): Promise<string | typeof LOST_RACE> {
    return (await this.devices.trySetShares(callerAccess(principal.scopes), device, shares)) ? device.id : LOST_RACE;
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
