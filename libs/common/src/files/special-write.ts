import { constants, open as openFd } from 'node:fs';
import { FileHandle, open } from 'node:fs/promises';
import { Socket } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { InvalidInputError } from '../errors';
import { AtomicWriteCheck, fileWriter } from './atomic-write';
import { DigestTap } from './digest-tap';
import { fileSystemError } from './fs-errors';
import type { SpecialFileType } from './file-contract';

/**
 * Writes into an existing device, FIFO or socket in place, as `cp` does: no temp file, no rename,
 * no chmod. A FIFO is opened without blocking (O_NONBLOCK: a FIFO nobody reads is refused with
 * ENXIO at once instead of holding a thread of libuv's pool until a reader comes) and written
 * through a pipe handle on the event loop; a device is written as a file. The bytes are checked
 * against the expected size and checksum as they pass, but what reached a pipe cannot be taken
 * back: a mismatch is reported after the fact.
 */
export class SpecialFileWriter {
  private constructor(
    readonly target: string,
    private sink: Writable | undefined,
    private handle: FileHandle | undefined,
  ) {}

  static async open(target: string, path: string, type: SpecialFileType): Promise<SpecialFileWriter> {
    try {
      if (type === 'fifo' || type === 'socket') {
        // A plain descriptor, owned (and closed) by the socket from here on.
        const fd = await promisify(openFd)(path, constants.O_WRONLY | constants.O_NONBLOCK);
        return new SpecialFileWriter(target, new Socket({ fd, readable: false, writable: true }), undefined);
      }
      return new SpecialFileWriter(target, undefined, await open(path, constants.O_WRONLY));
    } catch (err) {
      throw fileSystemError(err, target);
    }
  }

  async write(data: Readable, check: AtomicWriteCheck): Promise<{ size: number; sha256: string }> {
    const sink = this.sink ?? (this.handle ? fileWriter(this.handle) : undefined);
    if (!sink) throw new Error('SpecialFileWriter used twice');
    this.sink = undefined;
    try {
      const tap = new DigestTap(check.size);
      await pipeline(data, tap, sink);
      const sha256 = tap.digest();
      const expected = await check.expectedSha256();
      if (expected === undefined) throw new InvalidInputError('No checksum was given for the data (sha256)');
      if (expected !== sha256) throw new InvalidInputError(`Checksum mismatch: expected sha256 ${expected}, received ${sha256} (already written to ${this.target})`);
      return { size: tap.bytes, sha256 };
    } catch (err) {
      throw fileSystemError(err, this.target);
    } finally {
      await this.discard();
    }
  }

  /** Closes the file; nothing to remove. Idempotent. */
  async discard(): Promise<void> {
    const { sink, handle } = this;
    this.sink = undefined;
    this.handle = undefined;
    sink?.destroy();
    await handle?.close().catch(() => undefined);
  }
}
