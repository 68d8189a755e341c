import { useState } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import { addMember, addOrgDevice, listMembers, listOrgDevices, orgCapabilities, removeMember, removeOrgDevice } from '../api/orgs';
import { ActionResult } from '../components/action-result';
import { ErrorBox, Loading, StatusBadge } from '../components/feedback';
import { useAction } from '../components/use-action';
import { useLoad } from '../components/use-load';
import { deviceHref } from '../router';

const ROLES = ['viewer', 'editor', 'admin'] as const;

/**
 * One organization: members and their roles, its devices; the controls AccessPolicy allows the
 * caller on it (GET /orgs/{org_id}/capabilities): `org:manage` adds, re-roles and removes members,
 * `org:move-devices` moves devices in and out (the routes refuse the rest anyway).
 */
export function OrgDetail({ api, orgId }: { api: ApiClient; orgId: string }) {
  const data = useLoad(async () => {
    const [members, access] = await Promise.all([listMembers(api, orgId), orgCapabilities(api, orgId)]);
    const may = (c: string) => access.capabilities.includes(c);
    return { members, devices: may('org:devices') ? await listOrgDevices(api, orgId) : null, may };
  }, orgId);
  const action = useAction();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<string>('viewer');
  const [device, setDevice] = useState('');

  if (data.error) return <ErrorBox error={data.error} onRetry={data.reload} />;
  if (!data.data) return <Loading what="the organization" />;
  const { members, devices, may } = data.data;
  const manage = may('org:manage');
  const move = may('org:move-devices');
  const act = (work: () => Promise<unknown>, done: string) => action.run(work, done, data.reload);

  return (
    <div class="org-detail">
      <h3>Members</h3>
      {members.length === 0 ? (
        <p class="muted">No members besides the owner.</p>
      ) : (
        <ul class="members" aria-label={`Members of ${orgId}`}>
          {members.map((m) => (
            <li key={m.email} data-member={m.email}>
              {m.email}{' '}
              {manage ? (
                <>
                  <select aria-label={`Role of ${m.email}`} value={m.role} disabled={action.busy} onChange={(e) => act(() => addMember(api, orgId, m.email, e.currentTarget.value), `${m.email} is now ${e.currentTarget.value}.`)}>
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>{' '}
                  <button type="button" class="danger small" aria-label={`Remove ${m.email}`} disabled={action.busy} onClick={() => act(() => removeMember(api, orgId, m.email), `Removed ${m.email}.`)}>
                    Remove
                  </button>
                </>
              ) : (
                <span class="muted">{m.role}</span>
              )}
            </li>
          ))}
        </ul>
      )}
      {manage && (
        <form class="filters" onSubmit={(e) => { e.preventDefault(); void act(() => addMember(api, orgId, email.trim(), role), `Added ${email.trim()} as ${role}.`); setEmail(''); }}>
          <label>
            Member e-mail
            <input type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          </label>
          <label>
            Role
            <select value={role} onChange={(e) => setRole(e.currentTarget.value)}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={action.busy}>
            Add member
          </button>
        </form>
      )}
      <h3>Devices</h3>
      {devices === null ? (
        <p class="muted">You may not list this organization's devices.</p>
      ) : devices.length === 0 ? (
        <p class="muted">No device belongs to this organization.</p>
      ) : (
        <ul class="members" aria-label={`Devices of ${orgId}`}>
          {devices.map((d) => (
            <li key={d.id}>
              <a href={deviceHref(d.id)}>{d.name}</a> <StatusBadge status={d.status} />{' '}
              {move && (
                <button type="button" class="secondary small" aria-label={`Take ${d.name} out`} disabled={action.busy} onClick={() => act(() => removeOrgDevice(api, orgId, d.id), `Took ${d.name} out of ${orgId}.`)}>
                  Take out
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {move && (
        <form class="filters" onSubmit={(e) => { e.preventDefault(); void act(() => addOrgDevice(api, orgId, device.trim()), `Moved ${device.trim()} into ${orgId}.`); setDevice(''); }}>
          <label>
            Device (name or id) you own
            <input required value={device} onInput={(e) => setDevice(e.currentTarget.value)} />
          </label>
          <button type="submit" disabled={action.busy}>
            Move into {orgId}
          </button>
        </form>
      )}
      <ActionResult action={action} />
    </div>
  );
}
