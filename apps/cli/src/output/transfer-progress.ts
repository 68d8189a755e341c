import { SingleBar } from 'cli-progress';
import type { ProgressCallback } from '../sdk/progress-stream';
import { formatBytes, formatDuration } from './human-units';

/**
 * Runs a transfer under a progress bar on stderr: percentage, bytes, average rate and the time
 * left at that rate. Drawn only when stderr is a terminal and not under --json, so pipes, scripts
 * and agents see nothing but the result. The bar appears with the first report of a non-empty
 * transfer and stays, complete or not, as the last line of the transfer.
 */
export async function withTransferProgress<T>(label: string, json: boolean, work: (onProgress?: ProgressCallback) => Promise<T>): Promise<T> {
  if (json || !process.stderr.isTTY) return work(undefined);
  let bar: SingleBar | undefined;
  let started = 0;
  const onProgress: ProgressCallback = (done, reported) => {
    // A file that grew since it was listed must not push the bar past its end.
    const total = Math.max(reported, done);
    if (!bar) {
      if (total === 0) return;
      started = Date.now();
      // linewrap: cut the line to the terminal's width rather than switch wrapping off, which a Ctrl-C would leave off.
      bar = new SingleBar({ format: `${label} [{bar}] {percentage}% | {done} of {size} | {rate} | ETA {remaining}`, stream: process.stderr, barsize: 30, linewrap: true });
      bar.start(total, done, figures(done, total, 0));
      return;
    }
    bar.setTotal(total);
    bar.update(done, figures(done, total, Date.now() - started));
  };
  try {
    return await work(onProgress);
  } finally {
    bar?.stop();
  }
}

/**
 * The bar's words, named apart from cli-progress's own tokens (which would win). The rate is the
 * average since the start, which a burst or a stall moves little.
 */
function figures(done: number, total: number, elapsedMs: number): Record<string, string> {
  const rate = elapsedMs > 0 ? (done / elapsedMs) * 1000 : 0;
  return {
    done: formatBytes(done),
    size: formatBytes(total),
    rate: `${formatBytes(rate)}/s`,
    remaining: rate > 0 ? formatDuration((total - done) / rate) : '--',
  };
}
