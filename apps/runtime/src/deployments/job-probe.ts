import { Job, parseDuration, Probe } from '@svc/common';
import { sleep } from '../util/abortable';
import { describeExit, JobProcessOptions, runCommand } from './job-process';

/** A probe command never gets more than this, however rarely it runs. */
const MAX_PROBE_TIMEOUT_MS = 30_000;

export interface ProbeResult {
  passed: boolean;
  /** Failures in a row, 0 after a pass. */
  consecutiveFailures: number;
  /** `exit code 1`, `timed out`: why the last check failed. */
  detail: string;
}

/**
 * Runs a probe's command every `every` (the wait counts from the end of the previous check, so
 * checks never overlap), with a timeout of min(every, 30 s); reports each result.
 */
export class ProbeLoop {
  private readonly controller = new AbortController();
  private consecutiveFailures = 0;

  constructor(
    private readonly probe: Probe,
    private readonly process: Omit<JobProcessOptions, 'timeoutMs' | 'log'>,
    private readonly killGraceMs: number,
    private readonly onResult: (result: ProbeResult) => void,
  ) {}

  start(): void {
    void this.loop();
  }

  stop(): void {
    this.controller.abort();
  }

  private async loop(): Promise<void> {
    const everyMs = parseDuration(this.probe.every) ?? 10_000;
    const signal = this.controller.signal;
    for (;;) {
      await sleep(everyMs, signal);
      if (signal.aborted) return;
      const exit = await runCommand(this.probe.observe, { ...this.process, timeoutMs: Math.min(everyMs, MAX_PROBE_TIMEOUT_MS) }, signal, this.killGraceMs);
      if (signal.aborted) return;
      const passed = exit.code === 0 && !exit.timedOut;
      this.consecutiveFailures = passed ? 0 : this.consecutiveFailures + 1;
      this.onResult({ passed, consecutiveFailures: this.consecutiveFailures, detail: passed ? 'passed' : describeExit(exit) });
    }
  }
}

/** healthy after a pass, unhealthy after `fails_after` failures in a row, unchanged in between. */
export class HealthTracker {
  state: 'healthy' | 'unhealthy' | 'unknown' = 'unknown';
  consecutiveFailures = 0;
  detail = '';

  constructor(private readonly failsAfter: number) {}

  record(result: ProbeResult): boolean {
    const before = this.state;
    this.consecutiveFailures = result.consecutiveFailures;
    this.detail = result.detail;
    if (result.passed) this.state = 'healthy';
    else if (result.consecutiveFailures >= Math.max(1, this.failsAfter)) this.state = 'unhealthy';
    return before !== this.state;
  }
}

/**
 * A job's liveness and health probes for one run of its main process: started with it, stopped at
 * a restart or a stop (a new run starts with its health unknown again).
 */
export class JobProbes {
  private loops: ProbeLoop[] = [];
  /** Settles with the reason once the liveness probe failed `fails_after` times in a row. */
  livenessFailed: Promise<string> = new Promise(() => undefined);
  health: HealthTracker | undefined;

  constructor(
    private readonly observe: Job['observe'],
    private readonly killGraceMs: number,
    /** Every health result; `changed` when it moved the state. */
    private readonly onHealth: (tracker: HealthTracker, changed: boolean) => void,
  ) {}

  start(process: Omit<JobProcessOptions, 'timeoutMs' | 'log'>): void {
    this.stop();
    const { liveness, health } = this.observe;
    let fail!: (reason: string) => void;
    this.livenessFailed = new Promise((resolve) => (fail = resolve));
    if (liveness) {
      this.loops.push(
        new ProbeLoop(liveness, process, this.killGraceMs, (result) => {
          if (result.consecutiveFailures >= Math.max(1, liveness.fails_after)) fail(`liveness probe failed ${result.consecutiveFailures} times (${result.detail})`);
        }),
      );
    }
    const tracker = health ? new HealthTracker(health.fails_after) : undefined;
    this.health = tracker;
    if (health && tracker) this.loops.push(new ProbeLoop(health, process, this.killGraceMs, (result) => this.onHealth(tracker, tracker.record(result))));
    for (const loop of this.loops) loop.start();
  }

  stop(): void {
    for (const loop of this.loops) loop.stop();
    this.loops = [];
  }
}
