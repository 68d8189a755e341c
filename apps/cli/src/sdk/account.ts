import { SvcClient } from './svc-client';

/** What `svc whoami` answers: who the server takes the caller for, where, and until when the session token holds. */
export interface Account {
  email: string;
  admin: boolean;
  organizations: { org_id: string; role: string }[];
  server: string;
  /** When the current access token expires (ISO 8601); svc refreshes it before that. */
  token_expires_at: string | null;
}

interface MeAnswer {
  kind: 'user' | 'admin-key';
  email?: string;
  admin?: boolean;
  memberships?: { orgId: string; role: string }[];
}

/** GET /me with the saved session (refreshed when it has expired). */
export async function currentAccount(client: SvcClient): Promise<Account> {
  const me = await client.rest.request<MeAnswer>({ method: 'GET', path: '/me', authorization: () => client.session.authorization() });
  const token = client.session.stored();
  return {
    email: me.email ?? '',
    admin: me.admin === true,
    organizations: (me.memberships ?? []).map((m) => ({ org_id: m.orgId, role: m.role === 'member' ? 'editor' : m.role })),
    server: client.settings.serverUrl.origin,
    token_expires_at: token ? new Date(token.expires_at * 1000).toISOString() : null,
  };
}

/** One line: "alice@example.com on https://svc.example.com (server admin)". */
export function describeAccount(account: Account): string {
  return `${account.email} on ${account.server}${account.admin ? ' (server admin)' : ''}`;
}
