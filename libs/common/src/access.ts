/**
 * How a caller's memberships and a device's owner and shares combine into what it may do with that
 * device or organization. Pure rules: the server's access policy applies them to every request,
 * clients use them to explain refusals.
 */
import { Capability, OrgCapability, OrgRelation, OrgRole, relationAllows, roleAllows, strongerRole, ToolRole, weakerRole } from './roles';
import { orgScope, userScope } from './scopes';

export interface AccessSubject {
  email: string;
  memberships: readonly { orgId: string; role: OrgRole }[];
}

export interface AccessTarget {
  ownerScope: string;
  shares: readonly { scope: string; role: OrgRole }[];
}

/**
 * - the owning user is `admin`;
 * - a user share gives its role;
 * - an owning organization gives the member's organization role;
 * - a share with an organization gives the weaker of the share's role and the member's role.
 * The strongest path wins; null means the device is not reachable at all.
 */
export function effectiveDeviceRole(subject: AccessSubject, device: AccessTarget): OrgRole | null {
  const me = userScope(subject.email);
  let role: OrgRole | null = device.ownerScope === me ? 'admin' : null;
  for (const share of device.shares) {
    if (share.scope === me) role = strongerRole(role, share.role);
  }
  for (const membership of subject.memberships) {
    const scope = orgScope(membership.orgId);
    if (device.ownerScope === scope) role = strongerRole(role, membership.role);
    const share = device.shares.find((s) => s.scope === scope);
    if (share) role = strongerRole(role, weakerRole(share.role, membership.role));
  }
  return role;
}

/**
 * Who speaks for an owner scope: that user, or an admin of that organization. They approve
 * registrations for it, own its devices (`device:own`) and may make it a device's new owner.
 */
export function canApproveFor(subject: AccessSubject, ownerScope: string): boolean {
  if (ownerScope === userScope(subject.email)) return true;
  return subject.memberships.some((m) => m.role === 'admin' && orgScope(m.orgId) === ownerScope);
}

/** A caller's rights on one device: its role, and whether it owns the device. */
export interface DeviceGrant {
  role: OrgRole;
  owner: boolean;
}

/** Null when the device is not reachable at all. */
export function deviceGrant(subject: AccessSubject, device: AccessTarget): DeviceGrant | null {
  const role = effectiveDeviceRole(subject, device);
  return role === null ? null : { role, owner: canApproveFor(subject, device.ownerScope) };
}

export function grantAllows(grant: DeviceGrant, capability: Capability): boolean {
  return capability === 'device:own' ? grant.owner : roleAllows(grant.role, capability);
}

/** The words of a refusal for a capability the caller's role on a device lacks: AccessPolicy's, and a client's that refuses before asking. */
export function roleRefusal(role: ToolRole, capability: Capability): string {
  return `Access denied: your role (${role}) does not allow ${capability}`;
}

export type OwnerChangeRefusal = 'same-owner' | 'not-owner' | 'target-not-yours';

/**
 * The one ownership rule: only the owner changes a device's owner, and only to a scope it speaks
 * for itself. An admin share or an editor role never gives a device away. Null means allowed;
 * the organization-sharing condition (which needs membership lookups) is checked by the server.
 */
export function ownerChangeRefusal(subject: AccessSubject, device: AccessTarget, toScope: string): OwnerChangeRefusal | null {
  if (device.ownerScope === toScope) return 'same-owner';
  if (!canApproveFor(subject, device.ownerScope)) return 'not-owner';
  if (!canApproveFor(subject, toScope)) return 'target-not-yours';
  return null;
}

/** The admin key has no e-mail; `serverAdmin` covers it, ADMIN_EMAILS and granted admins. */
export interface OrgSubject {
  email: string | null;
  serverAdmin: boolean;
  memberships: readonly { orgId: string; role: OrgRole }[];
}

export function orgRelations(subject: OrgSubject, org: { id: string; owner: string }): OrgRelation[] {
  const relations: OrgRelation[] = [];
  if (subject.email !== null && subject.email === org.owner) relations.push('owner');
  const membership = subject.memberships.find((m) => m.orgId === org.id);
  if (membership) relations.push(membership.role);
  if (subject.serverAdmin) relations.push('server-admin');
  return relations;
}

/** `hidden`: the organization is invisible to the caller (answer "not found"). */
export type OrgDecision = 'allowed' | 'hidden' | 'forbidden';

export function orgDecision(subject: OrgSubject, org: { id: string; owner: string }, capability: OrgCapability): OrgDecision {
  const relations = orgRelations(subject, org);
  if (relations.length === 0) return 'hidden';
  return relations.some((r) => relationAllows(r, capability)) ? 'allowed' : 'forbidden';
}

/** A pending registration request as the device-id claim rule sees it. */
export interface WaitingRequest {
  id: string;
  ownerScope: string;
}

/**
 * Device-id claims while the id is not registered yet: requests are kept per (device id, owner
 * scope), and the oldest waiting request has the id first. Approving `requestId` is blocked by a
 * request for the same id that waited longer (`waitingOldestFirst` comes before it) and that the
 * approver cannot decide (another owner's), so a stranger cannot take the id from an owner whose
 * device asked first. Null means not blocked.
 */
export function deviceIdClaimBlocker<R extends WaitingRequest>(subject: AccessSubject, requestId: string, waitingOldestFirst: readonly R[]): R | null {
  for (const other of waitingOldestFirst) {
    if (other.id === requestId) return null;
    if (!canApproveFor(subject, other.ownerScope)) return other;
  }
  return null;
}
