import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** How far a transfer is: bytes passed so far of the bytes expected. */
export type ProgressCallback = (bytesDone: number, bytesTotal: number) => void;

export interface TransferOptions {
  /** Called with 0 as a transfer starts, then after every chunk; for a sync, over all its copies together. */
  onProgress?: ProgressCallback;
}

/**
 * `source` itself, or, when someone watches, `source` through a counter that reports every chunk.
 * The two are joined by a pipeline so that a failure travels as it would without the counter: a
 * source that breaks fails whoever reads the counter, a reader that gives up destroys the source.
 */
export function reportingProgress(source: Readable, total: number, onProgress: ProgressCallback | undefined): Readable {
  if (!onProgress) return source;
  let done = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      done += chunk.length;
      onProgress(done, total);
      callback(null, chunk);
    },
  });
  onProgress(0, total);
  // The reader of `counter` sees any failure of this pipeline, so its own rejection says nothing new.
  pipeline(source, counter).catch(() => undefined);
  return counter;
}
