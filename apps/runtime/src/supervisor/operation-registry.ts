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

  async abortAll(reason: string): Promise<void> {
    const all = [...this.running];
    for (const operation of all) operation.abort(reason);
    await Promise.allSettled(all.map((operation) => operation.done));
  }
}
