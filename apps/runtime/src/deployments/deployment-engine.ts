import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DeploymentDocument, DeploymentStatusReport, DesiredState } from '@svc/common';
import type { RuntimeLogger } from '../logging/runtime-logger';
import { DeploymentReconciler } from './deployment-reconciler';
import { DeploymentStateStore, DeploymentVersion, sameVersion, StoredState, versionOf } from './deployment-state-store';
import { clip, deploymentState, REPORT_TEXT_LIMITS } from './deployment-status';
import type { JobLog } from './job-log';
import { DEFAULT_JOB_TIMING, JobTiming } from './job-runner';
import { removeStaleEphemeralWorkdirs } from './job-workdir';
import { processGroupRecords } from './process-group-records';
import { gates, RollbackGate } from './rollback-gate';

export interface DeploymentEngineOptions {
  /** The runtime's deployments directory: `state.json`, `jobs/<id>` (persistent workdirs), `ephemeral/`. */
  dir: string;
  logger: RuntimeLogger;
  timing?: Partial<JobTiming>;
}

/** The deployments directory inside the runtime's configuration directory. */
export function deploymentsDirectory(configDir: string): string {
  return join(configDir, 'deployments');
}

/**
 * The device's side of deployments: takes desired states (from the server's channel, or from
 * disk at start-up, before and without any server), runs them through the reconciler, gates a
 * newly activated deployment on its health and rolls it back when the gate says so, and answers
 * with status reports. Desired states, rollbacks and the shutdown are handled one at a time.
 */
export class DeploymentEngine {
  private readonly store: DeploymentStateStore;
  private readonly reconciler: DeploymentReconciler;
  private readonly reconcilerTiming: JobTiming;
  private readonly listeners = new Set<() => void>();
  private state: StoredState;
  private gate: RollbackGate | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly options: DeploymentEngineOptions) {
    const logger = options.logger;
    this.store = new DeploymentStateStore(join(options.dir, 'state.json'), (error) => logger.error('deployment state not saved', { error }));
    this.state = this.store.load();
    this.reconcilerTiming = { ...DEFAULT_JOB_TIMING, ...options.timing };
    this.reconciler = new DeploymentReconciler({
      root: options.dir,
      timing: this.reconcilerTiming,
      logger,
      completed: {
        isCompleted: (jobId, hash) => this.state.completed_jobs[jobId] === hash,
        markCompleted: (jobId, hash) => {
          this.state.completed_jobs[jobId] = hash;
          void this.store.save(this.state);
        },
      },
      onChange: () => this.changed(),
    });
  }

  /** Runs the stored deployment at once (what ran before the runtime stopped); resolves once its jobs are starting. */
  start(): Promise<void> {
    return this.enqueue(async () => {
      await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
      // A runtime killed with SIGKILL left its jobs running: stopped before they start again, so one instance of each runs.
      await processGroupRecords(this.options.dir).stopLeftovers(this.reconcilerTiming.stopGraceMs, this.options.logger);
      await removeStaleEphemeralWorkdirs(this.options.dir);
      const running = this.state.running;
      if (running) this.options.logger.info('running the stored deployment', { deployment: running.id, jobs: running.jobs.length });
      await this.reconciler.reconcile(running);
      if (running && sameVersion(this.state.gating, running)) this.startGate(running);
    });
  }

  /**
   * Applies a desired state from the server and resolves with the reports to send for it (a
   * deployment it stopped included, once). The same revision again is a replay: only reported.
   */
  apply(desired: DesiredState): Promise<DeploymentStatusReport[]> {
    return this.enqueue(() => this.applyNow(desired));
  }

  /** What to report now: the running deployment, and a rolled-back one while the server still asks for it. */
  reports(): DeploymentStatusReport[] {
    const reportedAt = new Date().toISOString();
    const reports: DeploymentStatusReport[] = [];
    const marker = this.state.rolled_back;
    if (marker && sameVersion(marker, this.state.desired)) {
      reports.push({
        deployment_id: marker.deployment_id,
        status: 'rolled_back',
        jobs: marker.jobs,
        rollback: { reason: marker.reason, to_deployment_id: marker.to_deployment_id },
        reported_at: reportedAt,
      });
    }
    const runningId = this.reconciler.currentDeploymentId;
    if (runningId !== null) {
      const jobs = this.reconciler.statuses();
      reports.push({ deployment_id: runningId, status: this.closed ? 'stopped' : deploymentState(jobs), jobs, reported_at: reportedAt });
    }
    return reports;
  }

  /** The log of a job of the running deployment (or of the one it replaced). */
  log(jobId: string): JobLog | undefined {
    return this.reconciler.log(jobId);
  }

  /** Calls `listener` on every change of any job's status; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops every job (the stored state stays, so the next start runs them again). */
  shutdown(): Promise<void> {
    this.closed = true;
    return this.enqueue(async () => {
      this.cancelGate();
      await this.reconciler.stopAll();
      await this.store.save(this.state);
      this.changed();
    });
  }

  private async applyNow(desired: DesiredState): Promise<DeploymentStatusReport[]> {
    if (this.closed || desired.revision === this.state.revision) return this.reports();
    const next = desired.deployment;
    const current = this.state.running;
    this.state.revision = desired.revision;
    this.state.desired = next;
    this.options.logger.info('desired deployment', { revision: desired.revision, deployment: next?.id ?? null, updated_at: next?.updated_at });
    if (sameVersion(this.state.rolled_back, next)) {
      // Rolled back before, and unchanged since: reported as rolled back, not tried again.
      await this.store.save(this.state);
      return this.reports();
    }
    this.state.rolled_back = null;
    if (current && next && sameVersion(versionOf(current), next)) {
      this.state.running = next;
      await this.store.save(this.state);
      await this.reconciler.reconcile(next);
      return this.reports();
    }
    this.cancelGate();
    const retired = current && current.id !== next?.id ? [stoppedReport(current)] : [];
    this.state.previous = next ? current : null;
    this.state.running = next;
    this.state.gating = next && gates(next.rollback) ? versionOf(next) : null;
    this.forgetCompletedJobsGone();
    await this.store.save(this.state);
    await this.reconciler.reconcile(next);
    if (next && this.state.gating) this.startGate(next);
    return [...retired, ...this.reports()];
  }

  private startGate(deployment: DeploymentDocument): void {
    const version = versionOf(deployment);
    this.gate = new RollbackGate(deployment.rollback!, () => this.reconciler.views(), (reason) => this.gateVerdict(version, reason));
    this.options.logger.info('watching the health of the new deployment', { deployment: deployment.id, secs: deployment.rollback!.stabilization_period_secs });
    this.gate.start();
  }

  private gateVerdict(version: DeploymentVersion, reason: string | undefined): void {
    this.gate = undefined;
    if (!sameVersion(version, this.state.running)) return;
    if (reason === undefined) {
      this.options.logger.info('deployment stable', { deployment: version.deployment_id });
      this.state.gating = null;
      void this.store.save(this.state);
      return;
    }
    void this.enqueue(() => this.rollBack(version, reason));
  }

  /** Stops the failed deployment's jobs and starts the previous deployment's again. */
  private async rollBack(version: DeploymentVersion, reason: string): Promise<void> {
    if (this.closed || !sameVersion(version, this.state.running)) return;
    const target = this.state.previous;
    this.options.logger.warn('rolling back the deployment', { deployment: version.deployment_id, to: target?.id ?? null, reason });
    this.state.rolled_back = { ...version, reason: clip(reason, REPORT_TEXT_LIMITS.reason), to_deployment_id: target?.id ?? null, jobs: this.reconciler.statuses() };
    this.state.running = target;
    this.state.previous = null;
    this.state.gating = null;
    await this.store.save(this.state);
    await this.reconciler.reconcile(target);
    this.changed();
  }

  /** Completed `job` hashes of jobs no deployment the runtime keeps has any more. */
  private forgetCompletedJobsGone(): void {
    const known = new Set([this.state.desired, this.state.running, this.state.previous].flatMap((deployment) => deployment?.jobs.map((job) => job.id) ?? []));
    for (const id of Object.keys(this.state.completed_jobs)) if (!known.has(id)) delete this.state.completed_jobs[id];
  }

  private cancelGate(): void {
    this.gate?.cancel();
    this.gate = undefined;
  }

  private changed(): void {
    this.gate?.check();
    for (const listener of this.listeners) listener();
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch((error: Error) => this.options.logger.error('deployment engine failed', { error }));
    return run;
  }
}

function stoppedReport(deployment: DeploymentDocument): DeploymentStatusReport {
  return {
    deployment_id: deployment.id,
    status: 'stopped',
    jobs: deployment.jobs.map((job) => ({ id: job.id, status: job.enabled ? 'stopped' : 'disabled', health: 'unknown' })),
    reported_at: new Date().toISOString(),
  };
}
