import { useState } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import { addAccess, listAccess, removeAccess } from '../api/access';
import { ActionResult } from '../components/action-result';
import { Empty, ErrorBox, Loading } from '../components/feedback';
import { useAction } from '../components/use-action';
import { useLoad } from '../components/use-load';

const ROLES = ['viewer', 'editor', 'admin'] as const;

/** Who else may access the device (GET …/access) and, with `device:manage`, sharing it and stopping a share. */
export function AccessPanel({ api, device, canManage }: { api: ApiClient; device: string; canManage: boolean }) {
  const shares = useLoad(() => listAccess(api, device), device);
  const [who, setWho] = useState('');
  const [role, setRole] = useState<string>('viewer');
  const action = useAction();

  function share(event: Event) {
    event.preventDefault();
    const target = who.trim();
    void action.run(() => addAccess(api, device, target, role), `Shared with ${target} as ${role}.`, () => {
      setWho('');
      shares.reload();
    });
  }

  return (
    <div class="card" aria-labelledby="access-title">
      <h2 id="access-title">Access</h2>
      {shares.error ? <ErrorBox error={shares.error} onRetry={shares.reload} /> : null}
      {!shares.data && shares.loading && <Loading what="shares" />}
      {shares.data && shares.data.length === 0 && <Empty title="Not shared.">Only its owner has access to this device.</Empty>}
      {shares.data && shares.data.length > 0 && (
        <div class="table-wrap">
          <table aria-label="Shares">
            <thead>
              <tr>
                <th scope="col">Shared with</th>
                <th scope="col">Role</th>
                {canManage && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {shares.data.map((entry) => {
                const target = entry.email ?? entry.org_id ?? '';
                return (
                  <tr key={target} data-share={target}>
                    <td data-label="Shared with">{entry.email ?? `organization ${entry.org_id}`}</td>
                    <td data-label="Role">{entry.role}</td>
                    {canManage && (
                      <td data-label="Actions">
                        <button type="button" class="danger small" aria-label={`Stop sharing with ${target}`} disabled={action.busy} onClick={() => action.run(() => removeAccess(api, device, target), `Stopped sharing with ${target}.`, shares.reload)}>
                          Remove
                        </button>
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {canManage && (
        <form class="filters share-form" onSubmit={share}>
          <label>
            E-mail or organization id
            <input name="share-with" required value={who} autoComplete="off" onInput={(e) => setWho(e.currentTarget.value)} />
          </label>
          <label>
            Role
            <select name="share-role" value={role} onChange={(e) => setRole(e.currentTarget.value)}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={action.busy}>
            Share
          </button>
        </form>
      )}
      <ActionResult action={action} />
    </div>
  );
}
