import type { OrgRole, Scope } from '@svc/common';

export interface Membership {
  orgId: string;
  role: OrgRole;
}

/** An authenticated user with an active account. */
export interface UserPrincipal {
  kind: 'user';
  email: string;
  /** `user:<email>` plus `org:<id>` for every membership: what device queries filter on. */
  scopes: Scope[];
  memberships: Membership[];
  /** From ADMIN_EMAILS or granted through the admin API. */
  admin: boolean;
}

/** A request authenticated with the static ADMIN_KEY. */
export interface AdminKeyPrincipal {
  kind: 'admin-key';
}

export type Principal = UserPrincipal | AdminKeyPrincipal;

/** The name written into audit entries for an actor. */
export function actorName(principal: Principal): string {
  return principal.kind === 'user' ? principal.email : 'admin-key';
}
