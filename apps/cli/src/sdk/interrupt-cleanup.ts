import { rmSync } from 'node:fs';
import type { TempFileJournal } from '@svc/common';

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * The temp files (and spool directories) of this process's transfers in flight, removed if a stop
 * signal (Ctrl-C, SIGTERM, SIGHUP) or an exit ends svc under them: a transfer that fails removes
 * its own, but a signal's default action kills the process before any `finally` runs. While
 * something is recorded, svc handles those signals: it removes what is recorded, synchronously,
 * then dies of the signal as it would have (exit 130, 143, 129), unless another handler of that
 * signal (`svc mcp`'s) stops the process in its own way.
 */
class InterruptCleanup implements TempFileJournal {
  private readonly paths = new Set<string>();

  async record(path: string): Promise<void> {
    if (this.paths.size === 0) this.listen();
    this.paths.add(path);
  }

  async forget(path: string): Promise<void> {
    this.paths.delete(path);
    if (this.paths.size === 0) this.unlisten();
  }

  private readonly removeAll = (): void => {
    for (const path of this.paths) {
      try {
        rmSync(path, { recursive: true, force: true });
      } catch {
        // Nothing more can be done on the way out; the signal must still end the process.
      }
    }
    this.paths.clear();
    this.unlisten();
  };

  private readonly onSignal = (signal: NodeJS.Signals): void => {
    this.removeAll();
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };

  private listen(): void {
    for (const signal of STOP_SIGNALS) process.on(signal, this.onSignal);
    process.on('exit', this.removeAll);
  }

  private unlisten(): void {
    for (const signal of STOP_SIGNALS) process.off(signal, this.onSignal);
    process.off('exit', this.removeAll);
  }
}

/** One per process: the signal handlers are the process's. */
export const interruptCleanup = new InterruptCleanup();
