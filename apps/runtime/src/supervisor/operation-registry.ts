import { KILL_GRACE_MS } from './process-group';

/**
 * How long a shutdown waits for aborted operations to be reaped: past the process groups' SIGKILL
 * (KILL_GRACE_MS), so that no child outlives the runtime, and then some for the reaping.
 */
export const SHUTDOWN_GRACE_MS = KILL_GRACE_MS + 3000;

export interface RunningOperation {
  /** Stops the operation (kills its processes); `done` settles once everything is reaped. */
  abort(reason: string): void;
  done: Promise<void>;
}

/** What is in flight on this runtime, so that a shutdown can stop and reap all of it. */
export class OperationRegistry {
  private readonly running = new Set<RunningOperation>();

  get size(): number {
    return this.running.size;
  }

  add(operation: RunningOperation): void {
    this.running.add(operation);
    void operation.done.finally(() => this.running.delete(operation));
  }

  /**
   * Aborts everything in flight and waits for it to be reaped, but no longer than `graceMs`: an
   * operation that never settles must not keep the runtime from stopping (systemd would kill it
   * after its stop timeout, mid-write). Answers how many were still running when the wait ended.
   */
  async abortAll(reason: string, graceMs: number): Promise<number> {
    const all = [...this.running];
    for (const operation of all) operation.abort(reason);
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.allSettled(all.map((operation) => operation.done)), graceOver]);
    clearTimeout(timer);
    return all.filter((operation) => this.running.has(operation)).length;
  }
}
