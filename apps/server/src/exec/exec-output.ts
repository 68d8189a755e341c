import { limitsOf } from '@svc/common';

/** Largest `output` of a single-device JSON answer, and what a batch answer holds together: the catalog's device_exec limits. */
export const EXEC_OUTPUT_CAP_BYTES = limitsOf('device_exec').outputCapBytes;
export const EXEC_BATCH_OUTPUT_BUDGET_BYTES = limitsOf('device_exec').batchOutputBudgetBytes;

/**
 * Collects a command's output (stdout and stderr in arrival order) up to a byte cap; what comes
 * after the cap is counted and reported by a marker instead of held in memory.
 */
export class ExecOutputCollector {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private omitted = 0;

  constructor(private readonly capBytes: number) {}

  add(data: Buffer): void {
    const room = this.capBytes - this.kept;
    if (room >= data.length) {
      this.chunks.push(data);
      this.kept += data.length;
      return;
    }
    if (room > 0) {
      this.chunks.push(data.subarray(0, room));
      this.kept += room;
    }
    this.omitted += data.length - Math.max(room, 0);
  }

  text(): string {
    const text = Buffer.concat(this.chunks).toString('utf8');
    return this.omitted === 0 ? text : `${text}\n[svc: output truncated, ${this.omitted} more bytes not shown]\n`;
  }
}
