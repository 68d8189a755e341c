import { Job, JobCommand, parseDuration, Step, StepOutcome } from '@svc/common';
import { sleep } from '../util/abortable';
import { describeExit, JobProcessOptions, ProcessExit, runCommand } from './job-process';

/** Retry waits double after each failed attempt, up to this. */
const MAX_RETRY_BACKOFF_MS = 5 * 60_000;
/** An undo or stop command without a timeout of its own gets this much. */
const DEFAULT_CLEANUP_TIMEOUT_MS = 60_000;

export interface StepContext {
  process: Omit<JobProcessOptions, 'timeoutMs'>;
  /** Aborted when the job is stopped: the running step's group is stopped, no further attempt starts. */
  signal: AbortSignal;
  /** Between SIGTERM and SIGKILL when a stop or a timeout kills a step. */
  killGraceMs: number;
}

export interface StepResult {
  outcome: StepOutcome;
  exit: ProcessExit;
}

/**
 * One step with its retry policy: up to `attempts` runs, waiting `backoff` (doubling) between
 * them, retrying only the exit codes listed in `on_exit_codes` when there is such a list.
 */
export async function runStep(step: Step, context: StepContext, onAttempt?: (outcome: StepOutcome) => void): Promise<StepResult> {
  const attempts = Math.max(1, step.retry?.attempts ?? 1);
  let waitMs = parseDuration(step.retry?.backoff ?? '1s') ?? 1000;
  const timeoutMs = step.timeout === undefined ? undefined : parseDuration(step.timeout);
  const log = context.process.log;
  for (let attempt = 1; ; attempt++) {
    onAttempt?.({ name: step.name, status: 'running', attempts: attempt });
    log?.note(`step "${step.name}" started${attempts > 1 ? ` (attempt ${attempt} of ${attempts})` : ''}`);
    const exit = await runCommand(step.run, { ...context.process, timeoutMs, killGraceMs: context.killGraceMs }, context.signal, context.killGraceMs);
    if (exit.code === 0 && !exit.timedOut) {
      log?.note(`step "${step.name}" done`);
      return { outcome: { name: step.name, status: 'ok', exit_code: 0, attempts: attempt }, exit };
    }
    const outcome: StepOutcome = { name: step.name, status: exit.timedOut ? 'timed_out' : 'failed', exit_code: exit.code, attempts: attempt };
    log?.note(`step "${step.name}" failed: ${describeExit(exit)}`);
    if (context.signal.aborted || attempt >= attempts || !retryable(step, exit)) return { outcome, exit };
    onAttempt?.(outcome);
    log?.note(`retrying step "${step.name}" in ${waitMs} ms`);
    await sleep(waitMs, context.signal);
    if (context.signal.aborted) return { outcome, exit };
    waitMs = Math.min(waitMs * 2, MAX_RETRY_BACKOFF_MS);
  }
}

function retryable(step: Step, exit: ProcessExit): boolean {
  const codes = step.retry?.on_exit_codes;
  if (codes === undefined) return true;
  return exit.code !== null && codes.includes(exit.code);
}

/**
 * `steps` (some of `job.steps`) in order, each with its retries; stops at the first failure and
 * then, with `on_failure.undo = executed_steps`, undoes the steps that succeeded. Resolves with
 * the failure (undefined when every step succeeded); `record` hears each step's outcome by its
 * index in `job.steps`, attempts included.
 */
export async function runSteps(
  job: Job,
  steps: Step[],
  context: StepContext,
  record: (index: number, outcome: StepOutcome) => void,
): Promise<{ exit: ProcessExit; reason: string } | undefined> {
  const executed: Step[] = [];
  for (const step of steps) {
    if (context.signal.aborted) return { exit: { code: null, signal: null, timedOut: false }, reason: 'stopped' };
    const index = job.steps.indexOf(step);
    const { outcome, exit } = await runStep(step, context, (attempt) => record(index, attempt));
    record(index, outcome);
    if (outcome.status !== 'ok') {
      const tries = (outcome.attempts ?? 1) > 1 ? ` after ${outcome.attempts} attempts` : '';
      if (!context.signal.aborted && job.on_failure.undo === 'executed_steps') await undoSteps(executed, context);
      return { exit, reason: `step "${step.name}" failed: ${describeExit(exit)}${tries}` };
    }
    executed.push(step);
  }
  return undefined;
}

/**
 * The undo commands of `executed` (the steps that succeeded), last first. An undo that fails is
 * logged and the others still run: undoing is best effort. Not abortable: a stop that comes in
 * the middle waits for the cleanup to finish.
 */
export async function undoSteps(executed: Step[], context: StepContext): Promise<void> {
  for (const step of [...executed].reverse()) {
    if (step.undo === undefined) continue;
    await runCleanup(`undo of "${step.name}"`, step.undo, step.timeout, context);
  }
}

/** `stop.steps`, in order, each once; failures are logged, the next one still runs. */
export async function runStopSteps(steps: Step[], context: StepContext): Promise<void> {
  for (const step of steps) await runCleanup(`stop step "${step.name}"`, step.run, step.timeout, context);
}

async function runCleanup(what: string, command: JobCommand, timeout: string | undefined, context: StepContext): Promise<void> {
  const log = context.process.log;
  log?.note(`${what} started`);
  const timeoutMs = (timeout === undefined ? undefined : parseDuration(timeout)) ?? DEFAULT_CLEANUP_TIMEOUT_MS;
  const exit = await runCommand(command, { ...context.process, timeoutMs, killGraceMs: context.killGraceMs }, new AbortController().signal, context.killGraceMs);
  log?.note(exit.code === 0 ? `${what} done` : `${what} failed: ${describeExit(exit)}`);
}
