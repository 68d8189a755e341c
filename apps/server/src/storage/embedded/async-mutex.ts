/**
 * A FIFO mutex built on a promise chain. The embedded store shares one synchronous connection, so
 * an open transaction (which awaits between statements) must keep every other caller out until it
 * commits or rolls back.
 */
export class AsyncMutex {
  private tail: Promise<void> = Promise.resolve();
  /** Callers holding the mutex or queued for it. */
  private waiting = 0;

  /** No one holds the mutex and no one waits for it: a synchronous step may run now, in turn. */
  get idle(): boolean {
    return this.waiting === 0;
  }

  async runExclusive<R>(work: () => R | Promise<R>): Promise<R> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    this.waiting++;
    await previous;
    try {
      return await work();
    } finally {
      this.waiting--;
      release();
    }
  }
}
