/**
 * Scopes name who owns or may reach a device: `user:<email>` or `org:<org_id>`.
 * These functions are the single definition of the format, used by server, CLI and runtime.
 */
export type Scope = `user:${string}` | `org:${string}`;

export const EMAIL_PATTERN = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/;
export const ORG_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{1,62}$/;
export const MAX_EMAIL_LENGTH = 254;

export function isEmail(value: string): boolean {
  return value.length <= MAX_EMAIL_LENGTH && EMAIL_PATTERN.test(value);
}

export function isOrgId(value: string): boolean {
  return ORG_ID_PATTERN.test(value);
}

/** E-mail addresses are compared case-insensitively everywhere; this is the canonical form. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
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
    return isEmail(email) && email === normalizeEmail(email) ? { kind: 'user', email } : null;
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
  if (emailOrOrgId.includes('@')) return isEmail(emailOrOrgId) ? userScope(emailOrOrgId) : null;
  return isOrgId(emailOrOrgId) ? orgScope(emailOrOrgId) : null;
}
