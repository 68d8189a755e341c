/**
 * A FIFO mutex built on a promise chain. The embedded store shares one synchronous connection, so
 * an open transaction (which awaits between statements) must keep every other caller out until it
 * commits or rolls back.
 */
export class AsyncMutex {
  private tail: Promise<void> = Promise.resolve();

  async runExclusive<R>(work: () => R | Promise<R>): Promise<R> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      return await work();
    } finally {
      release();
    }
  }
}
