import type { Response } from 'express';
import type { ExecLine, ExecLineSink } from './exec-lines';

export const NDJSON = 'application/x-ndjson';

/**
 * Writes NDJSON lines to an HTTP response, starting it (200) on the first line. `line` resolves
 * only when the response can take more (or the client left), which is what pauses the tunnel.
 */
export class NdjsonResponse implements ExecLineSink {
  private begun = false;

  constructor(private readonly res: Response) {}

  get started(): boolean {
    return this.begun;
  }

  async line(line: ExecLine): Promise<void> {
    if (this.res.destroyed || this.res.writableEnded) return;
    if (!this.begun) {
      this.begun = true;
      this.res.status(200).setHeader('Content-Type', `${NDJSON}; charset=utf-8`);
      this.res.setHeader('Cache-Control', 'no-store');
    }
    if (this.res.write(JSON.stringify(line) + '\n')) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  end(): void {
    if (this.res.writableEnded) return;
    if (!this.begun) this.res.status(200).setHeader('Content-Type', `${NDJSON}; charset=utf-8`);
    this.res.end();
  }
}
