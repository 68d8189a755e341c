import type { BatchItem, Deployment, DeploymentStatus, Job, Probe } from '@svc/common';
import { formatDuration } from './human-units';
import { renderTable } from './table';
import { escapeTerminal } from './terminal-text';

/**
 * What people read of deployments: a deployment as a summary and a table of its jobs, a status
 * as one line and a table of job states. Every text from the device or the deployment is escaped
 * (renderTable does so per cell).
 */
export function deploymentSummary(device: string, deployment: Deployment): string {
  const lines = [`Deployment ${escapeTerminal(deployment.id)} on ${escapeTerminal(device)}${deployment.active ? ' (active)' : ''}`];
  if (deployment.name) lines.push(`Name:     ${escapeTerminal(deployment.name)}`);
  lines.push(`Rollback: ${deployment.rollback ? `${policyText(deployment.rollback.on_health_failure)}, within ${deployment.rollback.stabilization_period_secs} s of activation` : 'none'}`);
  lines.push(`Created:  ${deployment.created_at}, updated ${deployment.updated_at}`);
  if (deployment.redacted) lines.push('Secrets:  env values and file contents hidden (your role on this device does not allow device:deploy)');
  lines.push('');
  lines.push(
    deployment.jobs.length === 0
      ? 'No jobs: add one with svc deploy.'
      : renderTable(deployment.jobs, [
          { header: 'job', get: (job) => job.id },
          { header: 'type', get: (job) => (job.source === 'compose' ? `${job.type} (compose)` : job.type) },
          { header: 'enabled', get: (job) => (job.enabled ? 'yes' : 'no') },
          { header: 'steps', get: (job) => job.steps.map((step) => step.name) },
          { header: 'probes', get: probesText },
          { header: 'restart', get: (job) => (job.restart.policy === 'never' ? 'never' : `${job.restart.policy} (${job.restart.backoff}-${job.restart.max_backoff})`) },
        ]),
  );
  return lines.join('\n');
}

function policyText(policy: NonNullable<Deployment['rollback']>['on_health_failure']): string {
  if (typeof policy === 'object') return `after ${policy.consecutive} failed health checks in a row`;
  return { never: 'never', any: 'when any job fails', all: 'when every job fails' }[policy];
}

function probesText(job: Job): string {
  const probes: [string, Probe | undefined][] = [
    ['liveness', job.observe.liveness],
    ['health', job.observe.health],
  ];
  const texts = probes.filter(([, probe]) => probe !== undefined).map(([name, probe]) => `${name} every ${probe!.every}`);
  if (job.observe.logs) texts.push('logs');
  return texts.length === 0 ? '-' : texts.join(', ');
}

export type StatusItem = BatchItem<DeploymentStatus>;

/**
 * A status for people: one line for the deployment, then what makes it doubtful (the device
 * offline, or silent for too long), a table of its jobs, and the rollbacks around it.
 */
export function statusBlock(status: DeploymentStatus, now = new Date()): string {
  const reported = status.reported_at ? `reported ${status.reported_at}, ${ago(status.reported_at, now)}` : 'not reported by the device yet';
  const lines = [`Deployment ${escapeTerminal(status.deployment_id)}: ${escapeTerminal(status.status)} (${reported})`];
  if (!status.online) lines.push('Device offline: this is its last report, and may no longer be true.');
  else if (status.stale) lines.push('Stale: the device is online but has not reported on this deployment for over 3 minutes (it reports every minute).');
  if (status.rolled_back_from) {
    const { deployment_id: from, reason, at } = status.rolled_back_from;
    lines.push(`Active after an automatic rollback: deployment ${escapeTerminal(from)} was rolled back at ${escapeTerminal(at)}: ${escapeTerminal(reason)}`);
  }
  if (status.jobs.length > 0) {
    lines.push(
      renderTable(status.jobs, [
        { header: 'job', get: (job) => job.id },
        { header: 'status', get: (job) => job.status },
        { header: 'health', get: (job) => job.health },
        { header: 'restarts', get: (job) => job.restarts ?? 0 },
        { header: 'reason', get: (job) => job.reason },
      ]),
    );
  }
  if (status.rollback) {
    const to = status.rollback.to_deployment_id ? `deployment ${status.rollback.to_deployment_id}` : 'no deployment';
    lines.push(`Rolled back to ${escapeTerminal(to)}: ${escapeTerminal(status.rollback.reason)}`);
  }
  return lines.join('\n');
}

/** `12s ago`, `3m04s ago`, `2h10m ago`; a time ahead of ours (another clock's): `just now`. */
function ago(iso: string, now: Date): string {
  const seconds = Math.floor((now.getTime() - Date.parse(iso)) / 1000);
  return seconds > 0 ? `${formatDuration(seconds)} ago` : 'just now';
}

/** `svc deployments status` for several devices: a block per device, its error in place of its status. */
export function batchStatusText(items: StatusItem[], now = new Date()): string {
  return items
    .map((item) => {
      const name = escapeTerminal(item.device);
      if ('error' in item) return `${name}: error: ${escapeTerminal(item.error)}`;
      return `${name}: ${statusBlock(item, now)}`;
    })
    .join('\n\n');
}

/**
 * Every deployment answered, each running with all its jobs healthy (the runtime's `running`), said
 * by a device that is online and reporting (not stale), and none active only because a rollback
 * went back to it: what `until … status` waits for.
 */
export function allRunning(items: StatusItem[]): boolean {
  return items.every((item) => !('error' in item) && item.status === 'running' && item.online && !item.stale && !item.rolled_back_from);
}
