import { Inject, Injectable } from '@nestjs/common';
import {
  canApproveFor,
  CAPABILITIES,
  Capability,
  ConflictError,
  deviceGrant,
  deviceIdClaimBlocker,
  DeviceNotFoundError,
  ForbiddenError,
  grantAllows,
  isOrgId,
  NotFoundError,
  ORG_CAPABILITIES,
  OrgCapability,
  orgDecision,
  OrgRole,
  OrgSubject,
  ownerChangeRefusal,
  parseScope,
  roleRefusal,
  Scope,
  SERVER_CAPABILITIES,
  ServerCapability,
  serverAllows,
  toToolRole,
  WaitingRequest,
} from '@svc/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { DeviceRecords } from '../devices/records/device-records';
import { OrgRecords } from '../orgs/records/org-records';
import { AuditService } from '../audit/audit.service';
import { DeviceRecord, DeviceShare, OrgRecord } from '../storage/records';
import type { Principal, UserPrincipal } from '../auth/principal';
import { RefusalAudit } from './refusal-audit';

export interface AuthorizedDevice {
  device: DeviceRecord;
  role: OrgRole;
  /** Holds `device:own`: the owning user, or an admin of the owning organization. */
  owner: boolean;
}

/** A removed device's audit history as its former owner may read it: [historySince, removedAt]. */
export interface RemovedDeviceHistory {
  id: string;
  historySince: Date;
  removedAt: Date;
}

/** The fields an owner change writes: the new owner, and no shares (they are reset). */
export interface OwnerChange {
  ownerScope: string;
  shares: DeviceShare[];
  allowedScopes: string[];
}

/** What approving a re-registration does to the owner: `ownerChange` null means it stays. */
export interface RekeyPlan {
  ownerScope: string;
  ownerChange: OwnerChange | null;
}

const NOT_OWNER = 'Access denied: only the owner of a device (the owning user, or an admin of its owning organization) may change its owner';
const NOT_A_DEVICE_CREDENTIAL = 'Access denied: admin is not a device credential; organization membership required';
const ADMIN_KEY_ON_DEVICES = 'Access denied: the admin key cannot act on devices (admin is not a device credential); use a user access token';

const ORG_REFUSALS: Record<OrgCapability, string> = {
  'org:view': 'Access denied',
  'org:devices': 'Access denied: organization membership required',
  'org:manage': 'Access denied: organization admin role required',
  'org:move-devices': 'Access denied: organization admin role required',
  'org:delete': 'Access denied: only the owner or a server administrator may delete an organization',
};
const DEVICE_ORG_CAPABILITIES: readonly OrgCapability[] = ['org:devices', 'org:move-devices'];

/** The new owner keeps none of the old owner's grants. Also used when a deleted organization's devices pass to its owner. */
export function ownerChangeFields(toScope: string): OwnerChange {
  return { ownerScope: toScope, shares: [], allowedScopes: [] };
}

/**
 * The one authorization policy: every device, organization, ownership, registration and server
 * administration decision of every entry point (REST, client streams, MCP) is made here, from the
 * pure rules in `@svc/common` (access.ts, roles.ts), and every refusal it decides is audited here
 * (RefusalAudit). Deny unless allowed; a device the caller cannot reach is "not found"; server
 * administration is never a device credential. Routes name what they need through the operation
 * catalog (`@Operation`, OperationGuard); services ask here for what depends on their data.
 */
@Injectable()
export class AccessPolicy {
  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly devices: DeviceRecords,
    private readonly orgs: OrgRecords,
    private readonly audit: AuditService,
    private readonly refusals: RefusalAudit,
  ) {}

  /**
   * Resolves a `device` parameter (id or name) among the devices the caller reaches, tier by tier
   * (DeviceRecords.referencedBy: its own devices' ids and names before those shared with it), and
   * requires `capability`. Two devices of the deciding tier named alike are a conflict naming their ids.
   */
  async requireDevice(principal: Principal, ref: string, capability: Capability): Promise<AuthorizedDevice> {
    const user = await this.requireUser(principal);
    const matches = await this.devices.referencedBy(user.scopes, ref);
    if (matches.length === 0) throw new DeviceNotFoundError();
    if (matches.length > 1) {
      const ids = matches.map((d) => d.id).sort();
      throw new ConflictError(`Device reference "${ref}" matches ${ids.length} devices (ids: ${ids.join(', ')}); use the device id`);
    }
    return this.authorizeDevice(user, matches[0], capability);
  }

  /** The same decision for a device already loaded (for example by id, for a registration). */
  async authorizeDevice(principal: Principal, device: DeviceRecord, capability: Capability): Promise<AuthorizedDevice> {
    const grant = deviceGrant(await this.requireUser(principal), device);
    if (grant === null) throw new DeviceNotFoundError();
    if (!grantAllows(grant, capability)) {
      const refusal = new ForbiddenError(capability === 'device:own' ? NOT_OWNER : roleRefusal(toToolRole(grant.role), capability));
      throw await this.refusals.refused(principal, capability, { deviceId: device.id }, refusal);
    }
    return { device, ...grant };
  }

  /**
   * Devices are reached only through a user's own scopes: the admin key reaches none, whether a
   * user-only route (UsersOnly, asked by the authentication guard) or a device decision asks.
   */
  async requireUser(principal: Principal): Promise<UserPrincipal> {
    if (principal.kind === 'user') return principal;
    throw await this.refusals.refused(principal, 'acting on devices', {}, new ForbiddenError(ADMIN_KEY_ON_DEVICES));
  }

  /** Every device capability the caller's grant on an authorized device allows (for clients that hide what would be refused). */
  capabilitiesOn(access: AuthorizedDevice): Capability[] {
    return CAPABILITIES.filter((capability) => grantAllows(access, capability));
  }

  /** Whether a caller authorized on a device reads its deployments' secrets and job log tails: those who may change them (`device:deploy`). */
  readsDeploymentSecrets(access: AuthorizedDevice): boolean {
    return grantAllows(access, 'device:deploy');
  }

  /**
   * The audit history of a removed device (by id; its name is gone with it), for whoever would
   * hold `device:own` on it now: the owning user, or an admin of the owning organization, as
   * recorded at removal. The newest such removal counts; to anyone else the id is "not found".
   */
  async requireRemovedDeviceHistory(principal: Principal, deviceId: string): Promise<RemovedDeviceHistory> {
    const user = await this.requireUser(principal);
    for (const removal of await this.audit.removals(deviceId)) {
      if (removal.formerOwnerScope && removal.formerHistorySince && canApproveFor(user, removal.formerOwnerScope)) {
        return { id: deviceId, historySince: removal.formerHistorySince, removedAt: removal.timestamp };
      }
    }
    throw new DeviceNotFoundError();
  }

  /**
   * The event stream asks these for each event and connected caller at send time: answers, not
   * refusals (an event not shown is not audited). Device events: device:view; registration events:
   * who may decide them; organization events: org:view.
   */
  watchesDevice(principal: Principal, device: DeviceRecord): boolean {
    const grant = principal.kind === 'user' ? deviceGrant(principal, device) : null;
    return grant !== null && grantAllows(grant, 'device:view');
  }
  decidesRegistrationsFor(principal: Principal, ownerScope: string): boolean {
    return principal.kind === 'user' && canApproveFor(principal, ownerScope);
  }
  watchesOrg(principal: Principal, org: OrgRecord): boolean {
    return orgDecision(orgSubject(principal), org, 'org:view') === 'allowed';
  }

  /** Non-members do not see an organization (404); visible but not allowed is 403. */
  async requireOrg(principal: Principal, orgId: string, capability: OrgCapability): Promise<OrgRecord> {
    const org = typeof orgId === 'string' && isOrgId(orgId) ? await this.orgs.findById(orgId) : null;
    const subject = orgSubject(principal);
    const decision = org ? orgDecision(subject, org, capability) : 'hidden';
    if (decision === 'hidden') throw new NotFoundError('Organization not found');
    if (decision === 'forbidden') {
      const adminOnly = subject.serverAdmin && !subject.memberships.some((m) => m.orgId === orgId);
      const refusal = new ForbiddenError(adminOnly && DEVICE_ORG_CAPABILITIES.includes(capability) ? NOT_A_DEVICE_CREDENTIAL : ORG_REFUSALS[capability]);
      throw await this.refusals.refused(principal, capability, { orgId }, refusal);
    }
    return org!;
  }

  /**
   * Removing a member needs `org:manage`, except leaving: any member may leave (`org:view`). The
   * owner can neither be removed nor leave, so an organization always has its owner.
   */
  async requireMemberRemoval(principal: Principal, orgId: string, email: string): Promise<OrgRecord> {
    const leaving = principal.kind === 'user' && principal.email === email;
    const org = await this.requireOrg(principal, orgId, leaving ? 'org:view' : 'org:manage');
    if (email === org.owner) {
      const refusal = new ConflictError('The organization owner cannot be removed');
      throw await this.refusals.refused(principal, leaving ? 'leaving the organization' : 'org:manage', { orgId }, refusal);
    }
    return org;
  }

  /** Server administration (organization creation, user management): server administrators only. */
  async requireServer(principal: Principal, capability: ServerCapability): Promise<void> {
    if (serverAllows(orgSubject(principal).serverAdmin, capability)) return;
    throw await this.refusals.refused(principal, capability, {}, new ForbiddenError('Administrator privileges required'));
  }

  /** Every server capability the caller holds (for clients that hide what would be refused). */
  serverCapabilities(principal: Principal): ServerCapability[] {
    const { serverAdmin } = orgSubject(principal);
    return SERVER_CAPABILITIES.filter((capability) => serverAllows(serverAdmin, capability));
  }

  /** Every capability the caller holds on an organization it may see (requireOrg with `org:view` found it). */
  orgCapabilitiesOn(principal: Principal, org: OrgRecord): OrgCapability[] {
    const subject = orgSubject(principal);
    return ORG_CAPABILITIES.filter((capability) => orgDecision(subject, org, capability) === 'allowed');
  }

  /** The organizations a caller may list: its own, or all of them for server administrators. */
  visibleOrgIds(principal: Principal): readonly string[] | 'all' {
    const subject = orgSubject(principal);
    return subject.serverAdmin ? 'all' : subject.memberships.map((m) => m.orgId);
  }

  /**
   * Every owner change (organization moves, re-registration) passes here: only the owner, only to
   * a scope it speaks for, and with cross-organization sharing off, never into an organization
   * while shared outside it. Returns the fields to write: the shares are reset.
   */
  async authorizeOwnerChange(principal: UserPrincipal, device: DeviceRecord, toScope: string): Promise<OwnerChange> {
    const refusal = ownerChangeRefusal(principal, device, toScope);
    if (refusal === 'same-owner') throw new ConflictError(`Device already belongs to ${toScope}`);
    if (refusal === 'not-owner') throw await this.refusals.refused(principal, 'device:own', { deviceId: device.id }, new ForbiddenError(NOT_OWNER));
    if (refusal === 'target-not-yours') {
      const error = new ForbiddenError(`Access denied: you may not make ${toScope} the owner of a device`);
      throw await this.refusals.refused(principal, 'device:own', { deviceId: device.id }, error);
    }
    const target = parseScope(toScope);
    if (target?.kind === 'org' && !this.config.allowCrossOrgDeviceSharing) {
      for (const share of device.shares) {
        if (share.scope !== toScope && (await this.isOutside(target.orgId, share.scope))) {
          const refusal = new ConflictError(`Device is shared with ${share.scope}, outside ${target.orgId}; remove that share first (cross-organization sharing is disabled)`);
          throw await this.refusals.refused(principal, 'moving a shared device into the organization', { deviceId: device.id }, refusal);
        }
      }
    }
    return ownerChangeFields(toScope);
  }

  /**
   * Approving a registration request for a device id that is already registered (a re-key) needs
   * `device:manage` on that device. The owner stays unless the approver owns the device, and then
   * the requested owner goes through `authorizeOwnerChange` like any other owner change.
   */
  async planRekey(principal: UserPrincipal, existing: DeviceRecord, requestedScope: string): Promise<RekeyPlan> {
    if (deviceGrant(principal, existing) === null) throw new ConflictError(`Device id ${existing.id} is already registered`);
    const { owner } = await this.authorizeDevice(principal, existing, 'device:manage');
    if (!owner || requestedScope === existing.ownerScope) return { ownerScope: existing.ownerScope, ownerChange: null };
    const ownerChange = await this.authorizeOwnerChange(principal, existing, requestedScope);
    return { ownerScope: requestedScope, ownerChange };
  }

  /**
   * Approving the first registration of a device id: refused while an older request for that id
   * from an owner the approver does not speak for still waits (`deviceIdClaimBlocker`). An id
   * that is already registered is not decided here but by `planRekey`.
   */
  async requireDeviceIdClaim(principal: UserPrincipal, request: WaitingRequest & { deviceId: string }, waitingOldestFirst: readonly WaitingRequest[]): Promise<void> {
    if (deviceIdClaimBlocker(principal, request.id, waitingOldestFirst) === null) return;
    const refusal = new ConflictError(
      `Device id ${request.deviceId} was requested earlier for another owner, and that request is still waiting; it cannot be approved for ${request.ownerScope} meanwhile (choose another device id, or wait until that request is decided or expires)`,
    );
    throw await this.refusals.refused(principal, 'claiming the device id', { deviceId: request.deviceId }, refusal);
  }

  /** The owner scopes whose registration requests the caller decides: its own, and those of organizations it administers. */
  approvableScopes(principal: UserPrincipal): Scope[] {
    return principal.scopes.filter((scope) => canApproveFor(principal, scope));
  }

  /** Approving (or rejecting) a registration request is for whoever speaks for its owner scope. */
  async requireApprover(principal: UserPrincipal, request: { deviceId: string; ownerScope: string }): Promise<void> {
    if (canApproveFor(principal, request.ownerScope)) return;
    const refusal = new ForbiddenError(`Access denied: you may not approve devices for ${request.ownerScope}`);
    throw await this.refusals.refused(principal, 'approving the registration', { deviceId: request.deviceId }, refusal);
  }

  /**
   * The id is bound to the key that registered it: another key taking it over is the owner's call.
   * A caller the device is hidden from is left to the re-key rules, which refuse it as a taken id.
   */
  async requireKeyChange(principal: UserPrincipal, device: DeviceRecord, requestedKey: string): Promise<void> {
    if (device.publicKey === requestedKey) return;
    const grant = deviceGrant(principal, device);
    if (grant === null || grantAllows(grant, 'device:own')) return;
    const refusal = new ForbiddenError(
      `Access denied: device ${device.id} is registered with another key (${device.fingerprint ?? 'none recorded'}); only its owner may approve a key change`,
    );
    throw await this.refusals.refused(principal, 'device:own', { deviceId: device.id }, refusal);
  }

  /**
   * Approving one request decides the other waiting requests for the same device id only where
   * they ask for the same owner: another owner's request is never rejected by this approver.
   */
  decidedTogether(request: { ownerScope: string }, other: { ownerScope: string }): boolean {
    return other.ownerScope === request.ownerScope;
  }

  /** With ALLOW_CROSS_ORG_DEVICE_SHARING=false an organization's device is shared only with its members. */
  async requireShareAllowed(principal: Principal, device: Pick<DeviceRecord, 'id' | 'ownerScope'>, scope: string): Promise<void> {
    if (this.config.allowCrossOrgDeviceSharing) return;
    const owner = parseScope(device.ownerScope);
    if (owner?.kind === 'org' && (await this.isOutside(owner.orgId, scope))) {
      const refusal = new ForbiddenError(`Access denied: ${scope} is outside organization ${owner.orgId} and cross-organization sharing is disabled`);
      throw await this.refusals.refused(principal, 'sharing outside the organization', { deviceId: device.id }, refusal);
    }
  }

  private async isOutside(orgId: string, scope: string): Promise<boolean> {
    const target = parseScope(scope);
    return target?.kind !== 'user' || (await this.orgs.membership(orgId, target.email)) === null;
  }
}

function orgSubject(principal: Principal): OrgSubject {
  if (principal.kind !== 'user') return { email: null, serverAdmin: true, memberships: [] };
  return { email: principal.email, serverAdmin: principal.admin, memberships: principal.memberships };
}
