import type { ApiClient } from '../api/client';
import { approveUser, serverCapabilities, usersAwaitingApproval } from '../api/users';
import { ActionResult } from '../components/action-result';
import { Empty, ErrorBox, Loading } from '../components/feedback';
import { useAction } from '../components/use-action';
import { useLoad } from '../components/use-load';
import { formatLastSeen } from '../format';

/**
 * Users who signed in and wait for an administrator's approval (GET /users?active=false), and
 * approving them. Shown only when the server says the caller holds `server:manage-users`
 * (GET /me/capabilities); the routes refuse everyone else anyway.
 */
export function UsersAwaitingApproval({ api }: { api: ApiClient }) {
  const users = useLoad(async () => {
    const { capabilities } = await serverCapabilities(api);
    return capabilities.includes('server:manage-users') ? usersAwaitingApproval(api) : null;
  }, 'users');
  const action = useAction();

  if (users.data === null) return null;
  return (
    <div class="card users" aria-labelledby="users-title">
      <h2 id="users-title">Users awaiting approval</h2>
      {users.error ? <ErrorBox error={users.error} onRetry={users.reload} /> : null}
      {!users.data && users.loading && <Loading what="users" />}
      {users.data && users.data.length === 0 && <Empty title="Nobody is waiting.">A user who signs in for the first time waits here until approved.</Empty>}
      {users.data && users.data.length > 0 && (
        <ul class="entries" aria-label="Users awaiting approval">
          {users.data.map((u) => (
            <li key={u.email} data-user={u.email}>
              <span>
                {u.email} <span class="muted">since {formatLastSeen(u.created_at)}</span>
              </span>
              <button type="button" class="small" aria-label={`Approve ${u.email}`} disabled={action.busy} onClick={() => action.run(() => approveUser(api, u.email), `Approved ${u.email}.`, users.reload)}>
                Approve
              </button>
            </li>
          ))}
        </ul>
      )}
      <ActionResult action={action} />
    </div>
  );
}
