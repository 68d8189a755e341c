import type { DeploymentDocument, Job, JobStatus } from '@svc/common';
import type { RuntimeLogger } from '../logging/runtime-logger';
import { JobLog } from './job-log';
import { JobRunner, JobTiming } from './job-runner';
import { stableHash } from './stable-hash';

/** Which `job` definitions already ran to completion (kept on disk, so a restarted runtime does not run them again). */
export interface CompletedJobs {
  isCompleted(jobId: string, hash: string): boolean;
  markCompleted(jobId: string, hash: string): void;
}

export interface ReconcilerOptions {
  root: string;
  timing: JobTiming;
  logger: RuntimeLogger;
  completed: CompletedJobs;
  onChange: () => void;
}

/** What the rollback gate looks at for each job of the running deployment. */
export interface JobView {
  job: Job;
  status: JobStatus;
  healthFailures: number;
}

interface Running {
  runner: JobRunner;
  hash: string;
}

/**
 * Makes the running jobs match one deployment: missing jobs started, removed and disabled ones
 * stopped, changed ones (another hash of their JSON) stopped and started again, unchanged ones
 * left alone. Another deployment (another id) stops every job of the old one first, each with its
 * process group, and only then starts the new one's.
 */
export class DeploymentReconciler {
  private deploymentId: string | null = null;
  private jobs: Job[] = [];
  private readonly running = new Map<string, Running>();
  private readonly logs = new Map<string, JobLog>();

  constructor(private readonly options: ReconcilerOptions) {}

  get currentDeploymentId(): string | null {
    return this.deploymentId;
  }

  async reconcile(deployment: DeploymentDocument | null): Promise<void> {
    const next = deployment?.jobs ?? [];
    const switching = (deployment?.id ?? null) !== this.deploymentId;
    const wanted = new Map(next.filter((job) => job.enabled).map((job) => [job.id, stableHash(job)]));
    const leaving = [...this.running].filter(([id, { hash }]) => switching || wanted.get(id) !== hash);
    const previousIds = this.jobs.map((job) => job.id);
    this.deploymentId = deployment?.id ?? null;
    this.jobs = next;
    for (const [id] of leaving) this.running.delete(id);
    this.options.onChange();
    await Promise.all(leaving.map(([, { runner }]) => runner.stop()));
    if (switching) this.pruneLogs(new Set([...previousIds, ...next.map((job) => job.id)]));
    for (const job of next) {
      const hash = wanted.get(job.id);
      if (hash === undefined || this.running.has(job.id)) continue;
      const runner = new JobRunner({
        job,
        root: this.options.root,
        log: this.log(job.id, true)!,
        timing: this.options.timing,
        logger: this.options.logger.child({ job: job.id }),
        alreadyCompleted: job.type === 'job' && this.options.completed.isCompleted(job.id, hash),
        onCompleted: () => this.options.completed.markCompleted(job.id, hash),
        onChange: this.options.onChange,
      });
      this.running.set(job.id, { runner, hash });
      runner.start();
    }
    this.options.onChange();
  }

  /** Stops every job (runtime shutdown); what is stored stays, so they start again with the runtime. */
  async stopAll(): Promise<void> {
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.all(all.map(({ runner }) => runner.stop()));
  }

  statuses(): JobStatus[] {
    return this.views().map((view) => view.status);
  }

  views(): JobView[] {
    return this.jobs.map((job) => {
      if (!job.enabled) return { job, status: { id: job.id, status: 'disabled', health: 'unknown' }, healthFailures: 0 };
      const running = this.running.get(job.id);
      if (!running) return { job, status: { id: job.id, status: 'pending', health: 'unknown' }, healthFailures: 0 };
      return { job, status: running.runner.status(), healthFailures: running.runner.healthFailures };
    });
  }

  /** A job's log: jobs of the running deployment, and of the one it replaced (to read why that one failed). */
  log(jobId: string, create = false): JobLog | undefined {
    let log = this.logs.get(jobId);
    if (!log && create) {
      log = new JobLog();
      this.logs.set(jobId, log);
    }
    return log;
  }

  private pruneLogs(keep: Set<string>): void {
    for (const id of this.logs.keys()) if (!keep.has(id)) this.logs.delete(id);
  }
}
