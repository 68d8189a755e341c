import { Job, JobState, JobStatus, parseDuration, Step, StepOutcome } from '@svc/common';
import { childEnvironment } from '../handlers/exec-handler';
import type { RuntimeLogger } from '../logging/runtime-logger';
import { KILL_GRACE_MS } from '../supervisor/process-group';
import { sleep } from '../util/abortable';
import type { JobLog } from './job-log';
import { JobProbes } from './job-probe';
import { clip, jobHealth, REPORT_TEXT_LIMITS } from './deployment-status';
import { describeExit, followLogs, GroupRecorder, JobProcess, JobProcessOptions, ProcessExit } from './job-process';
import { processGroupRecords } from './process-group-records';
import { prepareWorkdir, releaseWorkdir } from './job-workdir';
import { runSteps, runStopSteps, StepContext } from './step-sequence';

export interface JobTiming {
  /** Between SIGTERM and SIGKILL when a job is stopped. */
  stopGraceMs: number;
  /** Between SIGTERM and SIGKILL for a step's timeout or a probe. */
  killGraceMs: number;
  /** A service that stayed up this long starts its restart backoff from the beginning again. */
  stableAfterMs: number;
}

export const DEFAULT_JOB_TIMING: JobTiming = { stopGraceMs: 10_000, killGraceMs: KILL_GRACE_MS, stableAfterMs: 60_000 };
/** How many log lines a status report carries. */
export const LOG_TAIL_LINES = 20;

export interface JobRunnerOptions {
  job: Job;
  /** Where the default workdirs live (`<data>/deployments`). */
  root: string;
  log: JobLog;
  timing: JobTiming;
  logger: RuntimeLogger;
  /** A `job` that already completed with exactly this definition: reported completed, not run again. */
  alreadyCompleted: boolean;
  onCompleted: () => void;
  onChange: () => void;
}

type MainOutcome = ProcessExit | 'liveness' | 'aborted';

/**
 * One job of the running deployment, from start to stop: its workdir and files, its steps (with
 * retries, timeouts and undo), for a `service` the main process kept running under its restart
 * policy, its probes, and its log. Every change of what `status()` says calls `onChange`.
 */
export class JobRunner {
  private state: JobState = 'pending';
  private restarts = 0;
  private exitCode: number | null | undefined;
  private reason: string | undefined;
  private readonly steps: StepOutcome[] = [];
  private readonly probes: JobProbes;
  private readonly lifetime = new AbortController();
  private readonly aborted: Promise<'aborted'>;
  private main: JobProcess | undefined;
  private workdir: string | undefined;
  private lifecycle: Promise<void> = Promise.resolve();
  private follower: Promise<void> = Promise.resolve();
  private stopping: Promise<void> | undefined;

  private readonly groups: GroupRecorder;

  constructor(private readonly options: JobRunnerOptions) {
    this.groups = processGroupRecords(options.root).recorderFor(options.job.id);
    this.aborted = new Promise((resolve) => this.lifetime.signal.addEventListener('abort', () => resolve('aborted'), { once: true }));
    this.probes = new JobProbes(options.job.observe, options.timing.killGraceMs, (tracker, changed) => {
      if (changed) options.log.note(`health: ${tracker.state} (${tracker.detail})`);
      this.changed();
    });
  }

  get job(): Job {
    return this.options.job;
  }

  start(): void {
    this.lifecycle = this.run().catch((error: Error) => {
      this.options.logger.error('job failed unexpectedly', { job: this.job.id, error });
      this.finish('failed', `runtime error: ${error.message}`);
    });
  }

  /** SIGTERM to the main process group (SIGKILL after the grace period), then `stop.steps`; an ephemeral workdir is removed. */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  /** Consecutive failed health checks (the rollback policy `{consecutive: N}` counts these). */
  get healthFailures(): number {
    return this.probes.health?.consecutiveFailures ?? 0;
  }

  status(): JobStatus {
    const status: JobStatus = { id: this.job.id, status: this.state, health: jobHealth(this.job.type, this.state, this.probes.health?.state), restarts: this.restarts };
    if (this.exitCode !== undefined) status.exit_code = this.exitCode;
    const health = this.probes.health;
    const reason = this.state === 'running' && health?.state === 'unhealthy' ? `health check failed ${health.consecutiveFailures} times in a row: ${health.detail}` : this.reason;
    if (reason !== undefined) status.reason = clip(reason, REPORT_TEXT_LIMITS.reason);
    const steps = this.steps.filter(Boolean);
    if (steps.length > 0) status.steps = steps.map((step) => ({ ...step }));
    status.log_tail = this.options.log.tail(LOG_TAIL_LINES).map((line) => clip(line, REPORT_TEXT_LIMITS.logLine));
    return status;
  }

  private async run(): Promise<void> {
    if (this.job.type === 'job' && this.options.alreadyCompleted) {
      this.finish('completed', 'completed before with this definition; not run again');
      return;
    }
    this.set('starting');
    try {
      this.workdir = await prepareWorkdir(this.options.root, this.job);
    } catch (error) {
      this.finish('failed', `cannot prepare the workdir: ${(error as Error).message}`);
      return;
    }
    if (this.signal.aborted) return;
    this.startFollower();
    const [setup, main] = this.job.type === 'service' ? [this.job.steps.slice(0, -1), this.job.steps.at(-1)] : [this.job.steps, undefined];
    if (this.job.type === 'job') {
      this.set('running');
      if (await this.runSteps(setup)) {
        this.finish('completed', undefined);
        this.options.onCompleted();
      } else if (!this.signal.aborted) this.finish('failed', this.reason);
    } else if (main === undefined) await this.observe();
    else await this.supervise(setup, main);
  }

  /** `observe` (and a service without steps): only probes and logs; a liveness failure counts as a restart. */
  private async observe(): Promise<void> {
    this.set('running');
    for (;;) {
      this.startProbes();
      if ((await Promise.race([this.livenessFailure(), this.aborted])) === 'aborted') return;
      this.restarts++;
      this.changed();
    }
  }

  private async supervise(setup: Step[], main: Step): Promise<void> {
    const { policy } = this.job.restart;
    let setupDone = false;
    let consecutive = 0;
    while (!this.signal.aborted) {
      if (!setupDone) {
        this.set('starting');
        setupDone = await this.runSteps(setup);
        if (this.signal.aborted) return;
        if (!setupDone && policy === 'never') return this.finish('failed', this.reason);
      }
      const upSince = Date.now();
      if (setupDone) {
        let outcome = await this.runMain(main);
        if (outcome === 'aborted') return;
        if (outcome !== 'liveness') {
          const exit = outcome;
          const succeeded = exit.code === 0 && !exit.timedOut;
          this.exitCode = exit.code;
          if (succeeded && this.job.observe.liveness) {
            // Detached, like `docker compose up -d`: the work goes on elsewhere and the liveness probe decides.
            this.reason = undefined;
            this.changed();
            outcome = await Promise.race([this.livenessFailure(), this.aborted]);
            if (outcome === 'aborted') return;
            await this.main?.stop(this.options.timing.killGraceMs);
          } else if (policy === 'never' || (policy === 'on_failure' && succeeded)) {
            this.probes.stop();
            return this.finish(succeeded ? 'completed' : 'failed', succeeded ? undefined : `main process ended: ${describeExit(exit)}`);
          } else this.reason = `main process ended: ${describeExit(exit)}`;
        }
        if (outcome === 'liveness' && policy === 'never') {
          this.probes.stop();
          return this.finish('failed', this.reason);
        }
      }
      if (Date.now() - upSince >= this.options.timing.stableAfterMs) consecutive = 0;
      await this.waitBeforeRestart(consecutive++);
    }
  }

  /** Starts the last step and waits for it to end, its liveness probe to fail, or the job to stop. */
  private async runMain(step: Step): Promise<MainOutcome> {
    if (this.signal.aborted) return 'aborted';
    const index = this.job.steps.length - 1;
    this.steps[index] = { name: step.name, status: 'running', attempts: 1 };
    this.options.log.note(`main process "${step.name}" started`);
    const timeoutMs = step.timeout === undefined ? undefined : parseDuration(step.timeout);
    const main = new JobProcess(step.run, { ...this.processOptions(), timeoutMs, killLeftovers: false });
    this.main = main;
    this.exitCode = undefined;
    this.set('running');
    this.startProbes();
    const outcome = await Promise.race([main.exited, this.livenessFailure(), this.aborted]);
    if (outcome === 'aborted') return outcome;
    if (outcome === 'liveness') {
      this.options.log.note(`${this.reason}; stopping the main process`);
      await main.stop(this.options.timing.killGraceMs);
    } else {
      this.options.log.note(`main process "${step.name}" ended: ${describeExit(outcome)}`);
      this.steps[index] = { name: step.name, status: outcome.timedOut ? 'timed_out' : outcome.code === 0 ? 'ok' : 'failed', exit_code: outcome.code, attempts: 1 };
      // What it left in its group only stays when it detached on purpose (exit 0, liveness-probed).
      if (!(outcome.code === 0 && this.job.observe.liveness)) await main.stop(this.options.timing.killGraceMs);
    }
    return outcome;
  }

  private async waitBeforeRestart(consecutive: number): Promise<void> {
    this.probes.stop();
    this.restarts++;
    const { backoff, max_backoff } = this.job.restart;
    const maxMs = parseDuration(max_backoff) ?? 300_000;
    const delayMs = Math.min((parseDuration(backoff) ?? 1000) * 2 ** Math.min(consecutive, 30), maxMs);
    this.reason = `${this.reason ?? 'restarting'}; restart ${this.restarts} in ${delayMs} ms`;
    this.options.log.note(this.reason);
    this.set('restarting');
    await sleep(delayMs, this.signal);
  }

  /** Runs steps in order; a failure records why (and undoes per `on_failure`). */
  private async runSteps(steps: Step[]): Promise<boolean> {
    const record = (index: number, outcome: StepOutcome) => {
      this.steps[index] = outcome;
      this.changed();
    };
    const failure = await runSteps(this.job, steps, this.stepContext(), record);
    if (failure && !this.signal.aborted) {
      this.exitCode = failure.exit.code;
      this.reason = failure.reason;
    }
    return failure === undefined && !this.signal.aborted;
  }

  private startProbes(): void {
    this.probes.start({ cwd: this.workdir!, env: this.env(), groups: this.groups });
  }

  /** Settles once the liveness probe of this run failed, with the reason recorded. */
  private livenessFailure(): Promise<'liveness'> {
    return this.probes.livenessFailed.then((reason) => {
      this.reason = reason;
      return 'liveness' as const;
    });
  }

  private startFollower(): void {
    const command = this.job.observe.logs?.follow;
    if (command !== undefined) this.follower = followLogs(command, this.processOptions(), this.signal, this.options.timing.killGraceMs);
  }

  private async shutDown(): Promise<void> {
    const prepared = this.state !== 'pending' && this.state !== 'disabled';
    this.set('stopping');
    this.lifetime.abort();
    this.probes.stop();
    await this.main?.stop(this.options.timing.stopGraceMs);
    await this.lifecycle;
    await this.main?.stop(this.options.timing.stopGraceMs);
    await this.follower;
    if (prepared && this.workdir !== undefined && this.job.stop.steps.length > 0) await runStopSteps(this.job.stop.steps, this.stepContext());
    await releaseWorkdir(this.job, this.workdir).catch((error) => this.options.logger.warn('cannot remove the workdir', { job: this.job.id, error }));
    this.set('stopped');
  }

  private get signal(): AbortSignal {
    return this.lifetime.signal;
  }

  private env(): NodeJS.ProcessEnv {
    return childEnvironment(this.job.env);
  }

  private processOptions(): JobProcessOptions {
    return { cwd: this.workdir!, env: this.env(), log: this.options.log, killGraceMs: this.options.timing.killGraceMs, groups: this.groups };
  }

  private stepContext(): StepContext {
    return { process: this.processOptions(), signal: this.signal, killGraceMs: this.options.timing.killGraceMs };
  }

  private finish(state: JobState, reason: string | undefined): void {
    if (this.signal.aborted && state !== 'stopped') return;
    this.reason = reason;
    this.set(state);
  }

  private set(state: JobState): void {
    if (state !== this.state) this.options.logger.debug('job state', { state, reason: this.reason });
    this.state = state;
    this.changed();
  }

  private changed(): void {
    this.options.onChange();
  }
}
