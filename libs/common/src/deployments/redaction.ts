/**
 * What a caller without `device:deploy` does not read of a deployment (docs/security.md): the
 * values of its jobs' environment and the contents of their inline files (where secrets live),
 * and the log tails of a status (what the jobs printed). Who may read them is AccessPolicy's
 * decision; this only says what to leave out.
 */
import type { DeploymentDocument, JobStatus } from './model';

/** Stands in for an env value or a file's content that the caller may not read. */
export const REDACTED = '[redacted]';

export function redactDeployment<D extends DeploymentDocument>(deployment: D): D & { redacted: true } {
  const jobs = deployment.jobs.map((job) => ({ ...job, env: hideValues(job.env), files: hideValues(job.files) }));
  return { ...deployment, jobs, redacted: true };
}

export function withoutLogTails<S extends { jobs: JobStatus[] }>(status: S): S {
  return { ...status, jobs: status.jobs.map(({ log_tail: _tail, ...job }) => job) };
}

function hideValues(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(values).map((key) => [key, REDACTED]));
}
