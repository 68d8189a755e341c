import { randomBytes } from 'node:crypto';
import { FileHandle, lstat, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InvalidInputError } from '../errors';
import { DigestTap } from './digest-tap';
import { MAX_FILE_MODE, WRITTEN_FILE_MODE } from './file-contract';
import { fileSystemError } from './fs-errors';

export interface AtomicWriteOptions {
  /** Permission bits (setuid, setgid and sticky are dropped: WRITTEN_FILE_MODE); default: the replaced file's, or a new file's default (0666 less the umask). */
  mode?: number;
  /** Modification time, ms since the epoch; default: now. */
  mtime?: number;
  /** Told of each temp file while it exists, so that one a crash left behind can be found and removed later. */
  tempFiles?: TempFileJournal;
}

/** Where a process notes its temp files in flight (the runtime's stale-upload sweep reads it). */
export interface TempFileJournal {
  record(temp: string): Promise<void>;
  forget(temp: string): Promise<void>;
}

export interface AtomicWriteCheck {
  /** Exact number of bytes expected. */
  size?: number;
  /** The expected checksum, asked for once the data has ended (it may arrive after the data, as a trailer). */
  expectedSha256: () => string | undefined | Promise<string | undefined>;
}

/**
 * Bytes a file transfer reads or buffers for writing at a time. Large, because every read and
 * write is a round trip through libuv's thread pool and a promise: with 64 KiB reads and a write
 * per 16 KiB HTTP/2 chunk, that overhead cost more than the copy itself.
 */
export const FILE_IO_CHUNK_BYTES = 1024 * 1024;

/** Temp files are named `.<name>.svc-<random>.tmp`, so a listing shows what they are. */
export const TEMP_FILE_MARK = '.svc-';
/** Recognises a temp file's name (and nothing a user would name a file by chance). */
export const TEMP_FILE_NAME = /^\..*\.svc-[0-9a-f]{12}\.tmp$/s;
const TEMP_NAME_CHARS = 200;

/**
 * Writes a file so that readers see either the old file or the complete new one: a temp file in
 * the same directory (mode 0600 while it fills), checked against the expected size and SHA-256,
 * fsync'ed, given its mode and mtime, then renamed over the target. Any failure (checksum
 * mismatch, aborted stream, full disk) removes the temp file and leaves the old file as it was.
 * `open` does everything that can fail before data flows (creating missing parent directories,
 * refusing a directory at the target, creating the temp file), so a refusal comes before any
 * byte is sent. Errors are domain errors naming the target (see fileSystemError).
 */
export class AtomicFileWriter {
  private constructor(
    readonly target: string,
    private readonly temp: string,
    private handle: FileHandle | undefined,
    private readonly mode: number,
    private readonly mtime: number | undefined,
    private readonly journal: TempFileJournal | undefined,
  ) {}

  static async open(target: string, options: AtomicWriteOptions = {}): Promise<AtomicFileWriter> {
    const directory = dirname(resolve(target));
    await makeDirectories(directory);
    const replaced = await existingFile(target);
    const temp = join(directory, `.${basename(target).slice(0, TEMP_NAME_CHARS)}${TEMP_FILE_MARK}${randomBytes(6).toString('hex')}.tmp`);
    let handle: FileHandle | undefined;
    try {
      await options.tempFiles?.record(temp);
      handle = await open(temp, 'wx', 0o666);
      const defaultMode = (await handle.stat()).mode & 0o777;
      await handle.chmod(0o600);
      return new AtomicFileWriter(target, temp, handle, (options.mode ?? replaced?.mode ?? defaultMode) & WRITTEN_FILE_MODE, options.mtime, options.tempFiles);
    } catch (err) {
      await handle?.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
      await options.tempFiles?.forget(temp).catch(() => undefined);
      throw fileSystemError(err, target);
    }
  }

  /** Fills the temp file from `data`, verifies it, and renames it into place; or discards it. */
  async write(data: Readable, check: AtomicWriteCheck): Promise<{ size: number; sha256: string }> {
    const handle = this.handle;
    if (!handle) throw new Error('AtomicFileWriter used twice');
    try {
      const tap = new DigestTap(check.size);
      await pipeline(data, tap, fileWriter(handle));
      const sha256 = tap.digest();
      const expected = await check.expectedSha256();
      if (expected === undefined) throw new InvalidInputError('No checksum was given for the data (sha256)');
      if (expected !== sha256) throw new InvalidInputError(`Checksum mismatch: expected sha256 ${expected}, received ${sha256}`);
      await handle.sync();
      await handle.chmod(this.mode);
      await handle.utimes(new Date(), this.mtime === undefined ? new Date() : new Date(this.mtime));
      await handle.close();
      this.handle = undefined;
      await rename(this.temp, this.target);
      await this.journal?.forget(this.temp).catch(() => undefined);
      await syncDirectory(dirname(this.temp));
      return { size: tap.bytes, sha256 };
    } catch (err) {
      await this.discard();
      throw fileSystemError(err, this.target);
    }
  }

  /** Removes the temp file; the target is untouched. Idempotent. */
  async discard(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close().catch(() => undefined);
    await unlink(this.temp).catch(() => undefined);
    await this.journal?.forget(this.temp).catch(() => undefined);
  }
}

/** `mkdir -p`, one level at a time: Node's recursive mkdir spins forever where a parent refuses creation with ENOENT (/proc). */
export async function makeDirectories(directory: string): Promise<void> {
  const missing: string[] = [];
  for (let current = resolve(directory); ; current = dirname(current)) {
    try {
      if (!(await stat(current)).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(current) === current) throw fileSystemError(err, current);
      missing.push(current);
    }
  }
  for (const path of missing.reverse()) {
    try {
      await mkdir(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw fileSystemError(err, path);
    }
  }
}

/** The file being replaced, if any; a directory there is refused before any byte is written. */
async function existingFile(target: string): Promise<{ mode: number } | undefined> {
  try {
    const found = await lstat(target);
    if (found.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    return found.isFile() ? { mode: found.mode & MAX_FILE_MODE } : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fileSystemError(err, target);
  }
}

/**
 * Writes the chunks one after the other into `handle`; the chunks that arrive while a write is
 * under way (up to FILE_IO_CHUNK_BYTES) go out together in one writev. Not a FileHandle write
 * stream: such a stream holds the handle until it closes itself, so `handle.close()` would wait
 * for it forever.
 */
export function fileWriter(handle: FileHandle): Writable {
  const writeAll = async (buffers: Buffer[]) => {
    const total = buffers.reduce((sum, buffer) => sum + buffer.length, 0);
    const written = (await handle.writev(buffers)).bytesWritten;
    if (written === total) return;
    const rest = Buffer.concat(buffers).subarray(written); // a short write: rare, so the copy is fine
    for (let offset = 0; offset < rest.length; ) offset += (await handle.write(rest, offset)).bytesWritten;
  };
  return new Writable({
    highWaterMark: FILE_IO_CHUNK_BYTES,
    write(chunk: Buffer, _encoding, callback) {
      writeAll([chunk]).then(() => callback(), callback);
    },
    writev(chunks, callback) {
      writeAll(chunks.map(({ chunk }) => chunk as Buffer)).then(() => callback(), callback);
    },
  });
}

/** Makes the rename itself durable; some file systems cannot fsync a directory, which is fine. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r').catch(() => undefined);
  if (!handle) return;
  await handle.sync().catch(() => undefined);
  await handle.close().catch(() => undefined);
}
