import { spawn } from 'node:child_process';
import type { JobCommand } from '@svc/common';
import { KILL_GRACE_MS } from '../supervisor/process-group';
import { sleep } from '../util/abortable';
import { groupRunning, stopGroup } from './group-stop';
import type { JobLog } from './job-log';

/** The `observe.logs.follow` command is started again this long after it ends. */
const FOLLOW_RESTART_MS = 2000;

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** The command could not be started (not found, not executable, bad working directory). */
  error?: string;
}

export interface JobProcessOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Where stdout and stderr go, line by line; absent = discarded (probes). */
  log?: JobLog;
  timeoutMs?: number;
  /** Between SIGTERM and SIGKILL when the timeout strikes. */
  killGraceMs?: number;
  /**
   * When the command exits, stop what it left running in its group (a step); false keeps it
   * (the main process of a service that detaches, like `docker compose up -d`).
   */
  killLeftovers?: boolean;
  /** Where the command's process group is recorded while it exists (see process-group-records.ts). */
  groups?: GroupRecorder;
}

export interface GroupRecorder {
  record(pgid: number): void;
  forget(pgid: number): void;
}

/** A string runs under `sh -lc` (a login shell, as the run-spec format promises); a list is the argv itself. */
export function commandArgv(command: JobCommand): string[] {
  return typeof command === 'string' ? ['sh', '-lc', command] : command;
}

/** `exit 3`, `killed by SIGTERM`, `timed out`: one line for a report. */
export function describeExit(exit: ProcessExit): string {
  if (exit.error) return exit.error;
  if (exit.timedOut) return 'timed out';
  if (exit.signal) return `killed by ${exit.signal}`;
  return `exit code ${exit.code}`;
}

/**
 * One command of a job, leading its own process group (spawn `detached`), so that a timeout or a
 * stop reaches everything it started. `exited` settles when the command itself exits; its output
 * may go on a little longer from what it left behind.
 */
export class JobProcess {
  readonly pid: number | undefined;
  readonly exited: Promise<ProcessExit>;
  private exit: ProcessExit | undefined;
  private timedOut = false;

  constructor(
    command: JobCommand,
    private readonly options: JobProcessOptions,
  ) {
    const [program, ...args] = commandArgv(command);
    const child = spawn(program, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.pid = child.pid;
    if (this.pid !== undefined) recordQuietly(options.groups, this.pid);
    for (const stream of [child.stdout, child.stderr]) {
      const sink = options.log?.source();
      stream.on('data', (chunk: Buffer) => sink?.write(chunk));
      stream.on('end', () => sink?.end());
      stream.on('error', () => undefined);
    }
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => this.timeout(), options.timeoutMs);
    this.exited = new Promise<ProcessExit>((resolve) => {
      const settle = (exit: ProcessExit) => {
        clearTimeout(timer);
        if (this.exit) return;
        this.exit = exit;
        resolve(exit);
      };
      child.once('error', (error: NodeJS.ErrnoException) => settle({ code: 127, signal: null, timedOut: false, error: `cannot run ${program}: ${error.code ?? error.message}` }));
      child.once('exit', (code, signal) => {
        settle({ code, signal, timedOut: this.timedOut });
        if (this.pid === undefined) return;
        if (options.killLeftovers !== false) void this.stopAndForget(KILL_GRACE_MS);
        else if (!groupRunning(this.pid)) options.groups?.forget(this.pid);
      });
    });
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** Stops the whole group (SIGTERM, SIGKILL after `graceMs`), whether or not the command itself still runs. */
  async stop(graceMs: number): Promise<void> {
    if (this.pid === undefined) return;
    await this.stopAndForget(graceMs);
    if (this.running) await this.exited;
  }

  private async stopAndForget(graceMs: number): Promise<void> {
    await stopGroup(this.pid!, graceMs);
    if (!groupRunning(this.pid!)) this.options.groups?.forget(this.pid!);
  }

  private timeout(): void {
    if (!this.running || this.pid === undefined) return;
    this.timedOut = true;
    this.options.log?.note(`timed out after ${this.options.timeoutMs} ms; stopping it`);
    void stopGroup(this.pid, this.options.killGraceMs ?? KILL_GRACE_MS);
  }
}

/** A record that cannot be written (a full disk) must not stop the job; at worst a SIGKILLed runtime cannot clean up after it. */
function recordQuietly(groups: GroupRecorder | undefined, pgid: number): void {
  try {
    groups?.record(pgid);
  } catch {
    // See above.
  }
}

/** Runs a command to its end; `signal` aborting stops its group at once (SIGTERM, SIGKILL after `graceMs`). */
export async function runCommand(command: JobCommand, options: JobProcessOptions, signal: AbortSignal, graceMs: number): Promise<ProcessExit> {
  const process = new JobProcess(command, options);
  const onAbort = () => void process.stop(graceMs);
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  try {
    return await process.exited;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** `observe.logs.follow`: runs the command, and again whenever it ends, until `signal` aborts; its output feeds the job's log. */
export async function followLogs(command: JobCommand, options: JobProcessOptions, signal: AbortSignal, graceMs: number): Promise<void> {
  while (!signal.aborted) {
    await runCommand(command, options, signal, graceMs);
    await sleep(FOLLOW_RESTART_MS, signal);
  }
}
