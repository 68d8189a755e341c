import type { JobStatus, RollbackPolicy } from '@svc/common';
import type { JobView } from './deployment-reconciler';

/** Whether a rollback policy watches at all. */
export function gates(policy: RollbackPolicy | undefined): policy is RollbackPolicy {
  return policy !== undefined && policy.on_health_failure !== 'never';
}

/**
 * The health gate of a newly activated deployment. During `stabilization_period_secs` every
 * change is checked against `on_health_failure` (`any`: one job unhealthy or failed; `all`:
 * every job so; `{consecutive: N}`: a job failing N health checks in a row, or failed); at the
 * end every enabled job must be running and healthy (a `job`: completed). The first failure, or
 * the end, settles it once: `onVerdict(reason)` to roll back, `onVerdict(undefined)` when stable.
 */
export class RollbackGate {
  private timer: NodeJS.Timeout | undefined;
  private settled = false;

  constructor(
    private readonly policy: RollbackPolicy,
    private readonly views: () => JobView[],
    private readonly onVerdict: (reason: string | undefined) => void,
  ) {}

  start(): void {
    const periodMs = Math.max(0, this.policy.stabilization_period_secs * 1000);
    this.timer = setTimeout(() => this.settle(this.finalProblem()), periodMs);
    this.check();
  }

  cancel(): void {
    this.settled = true;
    clearTimeout(this.timer);
  }

  /** Called on every change of a job's status while the period runs. */
  check(): void {
    if (this.settled) return;
    const problem = this.earlyProblem();
    if (problem !== undefined) this.settle(problem);
  }

  private settle(reason: string | undefined): void {
    if (this.settled) return;
    this.cancel();
    this.onVerdict(reason);
  }

  private earlyProblem(): string | undefined {
    const enabled = this.views().filter((view) => view.job.enabled);
    const rule = this.policy.on_health_failure;
    if (rule === 'any') {
      const bad = enabled.find((view) => failing(view.status));
      return bad && `job ${bad.job.id} is ${describe(bad.status)}; on_health_failure: any`;
    }
    if (rule === 'all') {
      if (enabled.length === 0 || !enabled.every((view) => failing(view.status))) return undefined;
      return `every job is unhealthy or failed: ${enabled.map((view) => `${view.job.id} ${describe(view.status)}`).join('; ')}; on_health_failure: all`;
    }
    if (typeof rule === 'object') {
      const bad = enabled.find((view) => view.status.status === 'failed' || view.healthFailures >= rule.consecutive);
      if (!bad) return undefined;
      if (bad.status.status === 'failed') return `job ${bad.job.id} is ${describe(bad.status)}`;
      return `job ${bad.job.id} failed ${bad.healthFailures} health checks in a row; on_health_failure: consecutive ${rule.consecutive}`;
    }
    return undefined;
  }

  private finalProblem(): string | undefined {
    const secs = this.policy.stabilization_period_secs;
    const bad = this.views().filter((view) => view.job.enabled && !stable(view));
    if (bad.length === 0) return undefined;
    return `not healthy within the stabilization period of ${secs} s: ${bad.map((view) => `job ${view.job.id} is ${describe(view.status)}`).join('; ')}`;
  }
}

function failing(status: JobStatus): boolean {
  return status.status === 'failed' || status.health === 'unhealthy';
}

function stable(view: JobView): boolean {
  if (view.job.type === 'job') return view.status.status === 'completed';
  return view.status.status === 'running' && view.status.health === 'healthy';
}

function describe(status: JobStatus): string {
  const state = status.status === 'running' ? `running, ${status.health}` : status.status;
  return status.reason ? `${state} (${status.reason})` : state;
}
