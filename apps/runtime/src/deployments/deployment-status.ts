import type { DeploymentState, HealthState, JobState, JobStatus, JobType } from '@svc/common';

/** What a report's texts are cut to, within what the server accepts (and a report line of at most 1 MiB with 64 jobs). */
export const REPORT_TEXT_LIMITS = { reason: 2000, logLine: 400 } as const;

/** `text` cut to `max` characters, an ellipsis marking the cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * A deployment's status from its jobs' (disabled jobs do not count): `failed` when a job failed;
 * `degraded` when one is restarting or unhealthy; `deploying` while one is still pending,
 * starting, running its steps (`job`) or waiting for its first health result; `running` when
 * every job runs healthy or has completed. A deployment without enabled jobs is `running`.
 */
export function deploymentState(jobs: JobStatus[]): DeploymentState {
  const counted = jobs.filter((job) => job.status !== 'disabled');
  if (counted.some((job) => job.status === 'failed')) return 'failed';
  if (counted.some((job) => job.status === 'restarting' || job.health === 'unhealthy')) return 'degraded';
  if (counted.some((job) => job.status === 'stopped' || job.status === 'stopping')) return 'degraded';
  if (counted.some((job) => !(job.status === 'completed' || (job.status === 'running' && job.health === 'healthy')))) return 'deploying';
  return 'running';
}

/**
 * A job's health: from its health probe while it runs (`unknown` until the first result); a
 * running job without one counts healthy, a `job` is healthy once completed; failed and
 * restarting are unhealthy; anything else (starting, stopped) unknown.
 */
export function jobHealth(type: JobType, state: JobState, probed: HealthState | undefined): HealthState {
  if (state === 'failed' || state === 'restarting') return 'unhealthy';
  if (state === 'completed') return 'healthy';
  if (state !== 'running' || type === 'job') return 'unknown';
  return probed ?? 'healthy';
}
