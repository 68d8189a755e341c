/**
 * The deployment model shared by the server (stores and validates it), the runtime (runs it) and
 * the CLI / `svc mcp` (write it from compose files and run-specs). Plain data, no dependencies:
 * the runtime carries this file and nothing of the YAML or schema libraries.
 *
 * Wire and storage shape are the same normalized JSON: durations stay strings (`30s`, `5m`, `1h`,
 * parsed by `parseDuration`), every file is inlined as content, defaults are filled in by the
 * writer (see docs/runspec.md).
 */

/** `service`: kept running; `job`: runs once when new or changed; `observe`: only observed. */
export const JOB_TYPES = ['service', 'job', 'observe'] as const;
export type JobType = (typeof JOB_TYPES)[number];

export const RESTART_POLICIES = ['never', 'on_failure', 'always'] as const;
export type RestartPolicyName = (typeof RESTART_POLICIES)[number];

/** A command: a string runs under `sh -lc`, a list is an argv run without a shell. */
export type JobCommand = string | string[];

export interface RetryPolicy {
  /** Total attempts, the first included (1 = no retry). */
  attempts: number;
  /** Wait between attempts, a duration (doubles after each failed attempt, at most 5 minutes). */
  backoff: string;
  /** Retry only on these exit codes; absent = on any non-zero exit. */
  on_exit_codes?: number[];
}

export interface Step {
  name: string;
  run: JobCommand;
  /** A duration; absent = no limit (the last step of a `service` is its long-running process). */
  timeout?: string;
  retry?: RetryPolicy;
  /** Runs when this step has to be undone (on_failure.undo = executed_steps, or a stop). */
  undo?: JobCommand;
}

export interface Probe {
  /** How often, a duration. */
  every: string;
  /** The check: exit 0 = pass. */
  observe: JobCommand;
  /** Consecutive failures before the probe counts as failed. */
  fails_after: number;
}

export interface RestartPolicy {
  policy: RestartPolicyName;
  /** First wait before a restart, a duration; doubles per consecutive restart up to `max_backoff`. */
  backoff: string;
  max_backoff: string;
}

export interface Job {
  id: string;
  type: JobType;
  enabled: boolean;
  /** `persistent`: kept across restarts and redeploys; `ephemeral`: a fresh directory each start. `path` overrides the runtime's default location. */
  workdir: { kind: 'persistent' | 'ephemeral'; path?: string };
  /** File name (relative to the workdir, no `..`) → content, written before the steps run. */
  files: Record<string, string>;
  env: Record<string, string>;
  steps: Step[];
  on_failure: { undo: 'none' | 'executed_steps' };
  /** What stopping the job runs (after SIGTERM to its main process, SIGKILL 10 s later). */
  stop: { steps: Step[] };
  observe: {
    /** A command whose output is the job's log (e.g. `docker compose logs -f`); absent = the steps' own output. */
    logs?: { follow: JobCommand };
    liveness?: Probe;
    health?: Probe;
  };
  restart: RestartPolicy;
  /** Where the job came from: a run-spec job, or the mapping of a compose file. */
  source: 'runspec' | 'compose';
}

export type HealthFailurePolicy = 'never' | 'any' | 'all' | { consecutive: number };

export interface RollbackPolicy {
  on_health_failure: HealthFailurePolicy;
  /** How long after activation the jobs must become (and stay) healthy. */
  stabilization_period_secs: number;
}

/** A stored deployment: the spec's `{id, active, jobs}` plus what the product adds. */
export interface DeploymentDocument {
  id: string;
  active: boolean;
  jobs: Job[];
  name?: string;
  rollback?: RollbackPolicy;
  created_at: string;
  updated_at: string;
}

export const JOB_STATES = ['pending', 'starting', 'running', 'completed', 'failed', 'restarting', 'stopping', 'stopped', 'disabled'] as const;
export type JobState = (typeof JOB_STATES)[number];

export const HEALTH_STATES = ['healthy', 'unhealthy', 'unknown'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

export interface StepOutcome {
  name: string;
  status: 'ok' | 'failed' | 'running' | 'skipped' | 'timed_out';
  exit_code?: number | null;
  attempts?: number;
}

export interface JobStatus {
  id: string;
  status: JobState;
  health: HealthState;
  restarts?: number;
  exit_code?: number | null;
  /** Why the job is failed or restarting, in one line. */
  reason?: string;
  steps?: StepOutcome[];
  /** The last lines of the job's log. */
  log_tail?: string[];
}

export const DEPLOYMENT_STATES = ['pending', 'deploying', 'running', 'degraded', 'failed', 'rolled_back', 'stopped'] as const;
export type DeploymentState = (typeof DEPLOYMENT_STATES)[number];

/** What the runtime reports and `device_deployment_status` answers. */
export interface DeploymentStatusReport {
  deployment_id: string;
  status: DeploymentState;
  jobs: JobStatus[];
  /** When the runtime rolled this deployment back: why, and to which deployment. */
  rollback?: { reason: string; to_deployment_id: string | null };
  /** ISO 8601, the runtime's clock. */
  reported_at: string;
}

/**
 * The desired state the server sends a runtime on the deployment channel (docs/protocol.md,
 * "Deployments"): the active deployment or none. `revision` grows with every change of the
 * device's deployments, so a runtime can tell a newer desired state from a replay.
 */
export interface DesiredState {
  revision: number;
  deployment: DeploymentDocument | null;
}

/** Lines of the deployment channel, NDJSON in both directions. */
export type ServerChannelMessage = { type: 'desired'; desired: DesiredState };
export type RuntimeChannelMessage = { type: 'report'; report: DeploymentStatusReport };

const DURATION = /^([1-9][0-9]{0,8})(ms|s|m|h)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** `500ms`, `30s`, `5m`, `2h` → milliseconds; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

export const DURATION_PATTERN = DURATION.source;

/**
 * The body of `POST /devices/:device/deployments/jobs`: what `device_deploy` sends once the caller
 * has read its file (the CLI and `svc mcp` read files on the caller's side and inline what they
 * reference). `merge`: each job is added, or replaces the job with its id. `replace` (a whole
 * deployment document): the jobs, and the rollback policy, become exactly these.
 */
export interface DeployRequest {
  /** Absent: the active deployment; with no active deployment a new one is created and activated. */
  deployment_id?: string;
  mode: 'merge' | 'replace';
  jobs: Job[];
  rollback?: RollbackPolicy;
  /** The deployment's display name. */
  name?: string;
}
