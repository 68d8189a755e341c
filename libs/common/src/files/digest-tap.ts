import { createHash } from 'node:crypto';
import { Transform, TransformCallback } from 'node:stream';
import { InvalidInputError } from '../errors';

/**
 * Passes bytes through unchanged while counting them and computing their SHA-256, so a transfer
 * is checksummed as it streams (no second read). With `expected`, a stream that carries more
 * bytes fails at once (instead of filling a disk) and one that ends short fails at its end.
 */
export class DigestTap extends Transform {
  private readonly hash = createHash('sha256');
  private total = 0;
  private hex: string | undefined;

  constructor(private readonly expected?: number) {
    super();
  }

  get bytes(): number {
    return this.total;
  }

  /** The checksum of everything that passed; call once the stream has ended. */
  digest(): string {
    this.hex ??= this.hash.digest('hex');
    return this.hex;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.total += chunk.length;
    if (this.expected !== undefined && this.total > this.expected) {
      callback(new InvalidInputError(`Received more than the announced ${this.expected} bytes`));
      return;
    }
    this.hash.update(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    if (this.expected !== undefined && this.total !== this.expected) {
      callback(new InvalidInputError(`Transfer ended after ${this.total} of ${this.expected} bytes`));
      return;
    }
    callback();
  }
}
