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

/** account_show (GET /me) with the saved session (refreshed when it has expired). */
export async function currentAccount(client: SvcClient): Promise<Account> {
  const me = await client.call('account_show', {});
  const token = client.session.stored();
  const user = me.kind === 'user' ? me : undefined;
  return {
    email: user?.email ?? '',
    admin: user?.admin === true,
    organizations: (user?.memberships ?? []).map((m) => ({ org_id: m.orgId, role: m.role === 'member' ? 'editor' : m.role })),
    server: client.settings.serverUrl.origin,
    token_expires_at: token ? new Date(token.expires_at * 1000).toISOString() : null,
  };
}

/** One line: "alice@example.com on https://svc.example.com (server admin)". */
export function describeAccount(account: Account): string {
  return `${account.email} on ${account.server}${account.admin ? ' (server admin)' : ''}`;
}
