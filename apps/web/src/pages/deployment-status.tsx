import { useState } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import { deploymentStatus } from '../api/deployments';
import { Empty, ErrorBox, Loading } from '../components/feedback';
import { useLiveReload } from '../components/live';
import { useRefresh } from '../components/use-refresh';
import { useLoad } from '../components/use-load';
import { formatLastSeen } from '../format';
import { JobLogs } from './job-logs';

/** How often a shown status is read again besides its events: what no event tells (restarts, log tails). */
const STATUS_REFRESH_MS = 10_000;

/**
 * A deployment's status as the device last reported it (POST /devices/deployments/status): the
 * deployment's state, each job's status, health, restarts and reason, an automatic rollback and
 * its reason; and each job's log.
 */
export function DeploymentStatusView({ api, device, deploymentId }: { api: ApiClient; device: string; deploymentId: string }) {
  const status = useLoad(() => deploymentStatus(api, device, deploymentId), `${device}:${deploymentId}`);
  const [logsOf, setLogsOf] = useState<string | null>(null);
  // Live: the server tells a change of the deployment's state or of a job's status or health;
  // restart counts and log tails change without an event, so the view is also read again now and then.
  useLiveReload(['deployment.status', 'device.online', 'device.offline'], status.reload, { device });
  useRefresh(status.reload, STATUS_REFRESH_MS);

  if (status.error) return <ErrorBox error={status.error} onRetry={status.reload} />;
  if (!status.data) return <Loading what="the deployment's status" />;
  const s = status.data;
  return (
    <div class="deployment-status" data-deployment-status={s.status}>
      <p>
        <strong>{s.deployment_id}</strong>: <span class={`badge badge-${s.status}`}>{s.status}</span>{' '}
        <span class="muted">
          reported {formatLastSeen(s.reported_at)}
          {s.stale ? ' (stale)' : ''}
          {s.online ? '' : ', device offline'}
        </span>
      </p>
      {s.rollback && (
        <p class="warning" role="note">
          Rolled back{s.rollback.to_deployment_id ? ` to ${s.rollback.to_deployment_id}` : ''}: {s.rollback.reason}
        </p>
      )}
      {s.rolled_back_from && (
        <p class="warning" role="note">
          Active after a rollback from {s.rolled_back_from.deployment_id} ({formatLastSeen(s.rolled_back_from.at)}): {s.rolled_back_from.reason}
        </p>
      )}
      {s.jobs.length === 0 ? (
        <Empty title="No job reported yet.">The device reports its jobs after it has applied the deployment.</Empty>
      ) : (
        <div class="table-wrap">
          <table aria-label={`Jobs of ${s.deployment_id}`}>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Status</th>
                <th scope="col">Health</th>
                <th scope="col">Restarts</th>
                <th scope="col">Reason</th>
                <th scope="col">Log</th>
              </tr>
            </thead>
            <tbody>
              {s.jobs.map((job) => (
                <tr key={job.id} data-job={job.id}>
                  <td data-label="Job">{job.id}</td>
                  <td data-label="Status">{job.status}</td>
                  <td data-label="Health" data-health={job.health}>
                    {job.health}
                  </td>
                  <td data-label="Restarts">{job.restarts ?? 0}</td>
                  <td data-label="Reason">{job.reason ?? (job.exit_code != null ? `exit code ${job.exit_code}` : '—')}</td>
                  <td data-label="Log">
                    <button type="button" class="secondary small" aria-label={`Log of ${job.id}`} onClick={() => setLogsOf(job.id)}>
                      Log
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {logsOf && <JobLogs key={logsOf} api={api} device={device} job={logsOf} onClose={() => setLogsOf(null)} />}
    </div>
  );
}
