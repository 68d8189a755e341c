/**
 * How a caller's memberships and a device's owner and shares combine into one role on that
 * device. Used by the server for every device operation and by clients to explain refusals.
 */
import { OrgRole, strongerRole, weakerRole } from './roles';
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

/** Who may approve a registration for an owner scope: that user, or an admin of that org. */
export function canApproveFor(subject: AccessSubject, ownerScope: string): boolean {
  if (ownerScope === userScope(subject.email)) return true;
  return subject.memberships.some((m) => m.role === 'admin' && orgScope(m.orgId) === ownerScope);
}
