import { useState } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import { activateDeployment, cloneDeployment, listDeployments, removeDeployment } from '../api/deployments';
import { ActionResult } from '../components/action-result';
import { Empty, ErrorBox, Loading } from '../components/feedback';
import { useLiveReload } from '../components/live';
import { useAction } from '../components/use-action';
import { useFocusOnMount } from '../components/use-focus';
import { useLoad } from '../components/use-load';
import { formatLastSeen } from '../format';
import { DeployForm } from './deploy-form';
import { DeploymentStatusView } from './deployment-status';

/**
 * A device's deployments (POST /devices/deployments/list): which is active, the status of the
 * one chosen (the active one first), and with `device:deploy` activate, clone, remove and deploy.
 */
export function DeploymentsPanel({ api, device, canDeploy }: { api: ApiClient; device: string; canDeploy: boolean }) {
  const list = useLoad(() => listDeployments(api, device), device);
  const [chosen, setChosen] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const action = useAction();
  // Asked again on the device's deployment events: a rollback changes which deployment is active.
  useLiveReload(['deployment.status', 'device.online'], list.reload, { device });
  const deployments = list.data ?? [];
  const shown = chosen ?? deployments.find((d) => d.active)?.id ?? null;

  return (
    <div class="card" aria-labelledby="deployments-title">
      <h2 id="deployments-title">Deployments</h2>
      {list.error ? <ErrorBox error={list.error} onRetry={list.reload} /> : null}
      {!list.data && list.loading && <Loading what="deployments" />}
      {list.data && deployments.length === 0 && <Empty title="No deployment on this device.">{canDeploy ? 'Deploy one below, or with `svc deploy`.' : ''}</Empty>}
      {deployments.length > 0 && (
        <div class="table-wrap">
          <table aria-label="Deployments">
            <thead>
              <tr>
                <th scope="col">Deployment</th>
                <th scope="col">Active</th>
                <th scope="col">Jobs</th>
                <th scope="col">Updated</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {deployments.map((d) => (
                <tr key={d.id} data-deployment={d.id} aria-current={d.id === shown ? 'true' : undefined}>
                  <td data-label="Deployment">
                    <button type="button" class="link" aria-pressed={d.id === shown} onClick={() => setChosen(d.id)}>
                      {d.id}
                    </button>
                    {d.name && <span class="muted"> {d.name}</span>}
                  </td>
                  <td data-label="Active">{d.active ? <span class="badge badge-online">active</span> : '—'}</td>
                  <td data-label="Jobs">{d.jobs.map((j) => j.id).join(', ') || '—'}</td>
                  <td data-label="Updated">{formatLastSeen(d.updated_at)}</td>
                  <td data-label="Actions">
                    {canDeploy ? (
                      <span class="actions">
                        {!d.active && (
                          <button type="button" class="small" disabled={action.busy} onClick={() => action.run(() => activateDeployment(api, device, d.id), `Activated ${d.id}.`, list.reload)}>
                            Activate
                          </button>
                        )}
                        <button type="button" class="secondary small" disabled={action.busy} onClick={() => action.run(() => cloneDeployment(api, device, d.id), (c) => `Cloned ${d.id} into ${c.id}.`, list.reload)}>
                          Clone
                        </button>
                        {removing === d.id ? (
                          <ConfirmRemoval
                            id={d.id}
                            busy={action.busy}
                            onConfirm={() => action.run(() => removeDeployment(api, device, d.id), `Removed ${d.id}.`, () => { setRemoving(null); setChosen(null); list.reload(); })}
                            onCancel={() => setRemoving(null)}
                          />
                        ) : (
                          <button type="button" class="danger small" aria-label={`Remove ${d.id}`} disabled={action.busy} onClick={() => setRemoving(d.id)}>
                            Remove…
                          </button>
                        )}
                      </span>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ActionResult action={action} />
      {shown && <DeploymentStatusView key={shown} api={api} device={device} deploymentId={shown} />}
      {canDeploy && (
        <details class="deploy">
          <summary>Deploy</summary>
          <DeployForm api={api} device={device} onDeployed={() => { setChosen(null); list.reload(); }} />
        </details>
      )}
    </div>
  );
}

/** Removing a deployment asks first; the confirmation takes the keyboard's focus (Enter removes, Cancel keeps it). */
function ConfirmRemoval({ id, busy, onConfirm, onCancel }: { id: string; busy: boolean; onConfirm: () => void; onCancel: () => void }) {
  const yes = useFocusOnMount<HTMLButtonElement>();
  return (
    <span class="confirm" role="group" aria-label={`Confirm removal of ${id}`}>
      <button type="button" class="danger small" ref={yes} disabled={busy} onClick={onConfirm}>
        Yes, remove
      </button>
      <button type="button" class="secondary small" onClick={onCancel}>
        Cancel
      </button>
    </span>
  );
}
