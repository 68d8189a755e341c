/**
 * Scopes name who owns or may reach a device: `user:<email>` or `org:<org_id>`.
 * These functions are the single definition of the format, used by server, CLI and runtime.
 */
export type Scope = `user:${string}` | `org:${string}`;

/**
 * The e-mail rule, one for every path that names a user (token claims, admin API, memberships,
 * shares, owner scopes): an ASCII dot-atom local part (letters, digits, `_ % + -`), `@`, and a
 * dotted domain whose top-level label is two or more letters or a punycode `xn--` label.
 * Look-alike Unicode, `/`, quotes and surrounding whitespace are refused rather than repaired,
 * so an address either names exactly one account or none.
 */
export const EMAIL_PATTERN = /^[A-Za-z0-9_%+-]+(\.[A-Za-z0-9_%+-]+)*@([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?\.)+([A-Za-z]{2,}|xn--[A-Za-z0-9-]*[A-Za-z0-9])$/;
export const ORG_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{1,62}$/;
export const MAX_EMAIL_LENGTH = 254;

/** True for an address the rule accepts, in any letter case. */
export function isEmail(value: string): boolean {
  return value.length <= MAX_EMAIL_LENGTH && EMAIL_PATTERN.test(value);
}

export function isOrgId(value: string): boolean {
  return ORG_ID_PATTERN.test(value);
}

/**
 * E-mail addresses are compared case-insensitively everywhere; this is the canonical form of an
 * address `isEmail` accepts. Only ASCII letters are folded: `String.toLowerCase` would also turn
 * look-alikes such as the Kelvin sign into `k`.
 */
export function normalizeEmail(email: string): string {
  return email.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** The one validator: the canonical form of `raw`, or null when the rule refuses it. */
export function canonicalEmail(raw: string): string | null {
  return isEmail(raw) ? normalizeEmail(raw) : null;
}

export function userScope(email: string): Scope {
  return `user:${normalizeEmail(email)}`;
}

export function orgScope(orgId: string): Scope {
  return `org:${orgId}`;
}

export type ParsedScope = { kind: 'user'; email: string } | { kind: 'org'; orgId: string };

/** Parses a scope string; returns null for anything that is not exactly one of the two formats. */
export function parseScope(value: string): ParsedScope | null {
  if (value.startsWith('user:')) {
    const email = value.slice(5);
    return canonicalEmail(email) === email ? { kind: 'user', email } : null;
  }
  if (value.startsWith('org:')) {
    const orgId = value.slice(4);
    return isOrgId(orgId) ? { kind: 'org', orgId } : null;
  }
  return null;
}

export function isScope(value: string): value is Scope {
  return parseScope(value) !== null;
}

/**
 * Interprets an `email_or_org_id` parameter: an e-mail names a user, anything else an organization.
 */
export function scopeForPrincipalName(emailOrOrgId: string): Scope | null {
  if (emailOrOrgId.includes('@')) {
    const email = canonicalEmail(emailOrOrgId);
    return email === null ? null : userScope(email);
  }
  return isOrgId(emailOrOrgId) ? orgScope(emailOrOrgId) : null;
}
