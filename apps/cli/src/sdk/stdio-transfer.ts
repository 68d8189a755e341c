import { createWriteStream } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AtomicWriteCheck, DigestTap, followLinks, InvalidInputError } from '@svc/common';
import { interruptCleanup } from './interrupt-cleanup';

/** `-` as a cp path: stdin as the source, stdout as the destination (as cp, scp and tar take it). */
export const STDIO_PATH = '-';

/** The svc command's own stdin and stdout; `svc mcp` has none to give (its stdout is the protocol). */
export interface StandardStreams {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

/**
 * Writes a download into `sink` (stdout), checking size and checksum as the bytes pass. Bytes
 * already written cannot be taken back: a mismatch fails the copy after the fact. `sink` stays
 * open (stdout is not ours to close).
 */
export async function writeToStream(data: Readable, sink: Writable, check: AtomicWriteCheck): Promise<void> {
  const tap = new DigestTap(check.size);
  await pipeline(data, tap, sink, { end: false });
  const expected = await check.expectedSha256();
  if (expected !== tap.digest()) throw new InvalidInputError(`Checksum mismatch: expected sha256 ${expected}, received ${tap.digest()}`);
}

/**
 * An upload needs its size and checksum known (headers, trailer), and stdin tells neither before
 * it ends: it is spooled to a private temp file first (a 0700 directory of its own), which `work`
 * uploads, and which is removed afterwards whatever happens (a stop signal included).
 */
export async function spoolToTempFile(stdin: Readable, work: (path: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-stdin-'));
  await interruptCleanup.record(dir);
  try {
    const path = join(dir, 'stdin');
    await pipeline(stdin, createWriteStream(path, { mode: 0o666 }));
    await work(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await interruptCleanup.forget(dir);
  }
}

/**
 * Whether a local destination is this very process's stdout or stderr (`/dev/stdout`,
 * `/dev/fd/1`, `/proc/self/fd/2`): then the copy goes to that stream, as for `-`. A socket there
 * (what many programs, Node among them, give their children as pipes) cannot be opened by path.
 */
export async function ownOutputStream(path: string): Promise<'stdout' | 'stderr' | undefined> {
  const end = await followLinks(path);
  const fds = await realpath(dirname(end)).catch(() => undefined);
  if (fds !== `/proc/${process.pid}/fd`) return undefined;
  return ({ '1': 'stdout', '2': 'stderr' } as const)[basename(end) as '1' | '2'];
}
