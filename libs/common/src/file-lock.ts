import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';

export interface FileLockOptions {
  /** How long to wait for another process's lock before giving up. */
  timeoutMs?: number;
  /** A lock older than this is stale whoever holds it: holds last milliseconds, a recycled pid must not block forever. */
  staleMs?: number;
}

interface LockOwner {
  pid: number;
  boot_id: string | null;
  nonce: string;
}

/** The lock is busy past the timeout; the message names the holder. */
export class FileLockTimeoutError extends Error {
  constructor(lockPath: string, holder: string) {
    super(`${lockPath} is held by ${holder}; try again, or remove it if no svc or runtime process is running`);
    this.name = 'FileLockTimeoutError';
  }
}

const RETRY_MS = 5;

/**
 * Runs `work` while holding `<path>.lock`, so that read-modify-write cycles of several processes
 * (the CLI refreshing its token, the runtime saving its key) do not overwrite each other. The
 * lock file is created complete in one step (link(2) of a written temp file), so it is never seen
 * half-written. A lock whose process is gone (same boot), that was taken before this boot, or is
 * older than `staleMs` is taken over; the takeover moves the file aside first and checks that it
 * moved the very lock it judged stale, so two waiters cannot both remove a fresh one.
 */
export function withFileLock<T>(path: string, work: () => T, options: FileLockOptions = {}): T {
  const lockPath = `${path}.lock`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const mine: LockOwner = { pid: process.pid, boot_id: bootId(), nonce: randomBytes(12).toString('hex') };
  const mineText = JSON.stringify(mine);
  const candidate = `${lockPath}.${process.pid}.${mine.nonce}`;
  writeFileSync(candidate, mineText, { mode: 0o600 });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      try {
        linkSync(candidate, lockPath);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = readHolder(lockPath);
      if (holder === undefined) continue;
      if (isStale(holder, staleMs)) {
        takeOver(lockPath, holder.text);
        continue;
      }
      if (Date.now() > deadline) throw new FileLockTimeoutError(lockPath, holder.owner ? `pid ${holder.owner.pid}` : 'an unknown process');
      sleepSync(RETRY_MS + Math.random() * RETRY_MS);
    }
  } finally {
    unlinkQuietly(candidate);
  }
  try {
    return work();
  } finally {
    if (readHolder(lockPath)?.text === mineText) unlinkQuietly(lockPath);
  }
}

function readHolder(lockPath: string): { text: string; owner?: LockOwner; mtimeMs: number } | undefined {
  try {
    const text = readFileSync(lockPath, 'utf8');
    const mtimeMs = statSync(lockPath).mtimeMs;
    try {
      const owner = JSON.parse(text) as LockOwner;
      return Number.isInteger(owner.pid) ? { text, owner, mtimeMs } : { text, mtimeMs };
    } catch {
      return { text, mtimeMs };
    }
  } catch {
    return undefined;
  }
}

function isStale(holder: { owner?: LockOwner; mtimeMs: number }, staleMs: number): boolean {
  if (Date.now() - holder.mtimeMs > staleMs) return true;
  const owner = holder.owner;
  if (owner === undefined) return false;
  const boot = bootId();
  if (owner.boot_id !== null && boot !== null && owner.boot_id !== boot) return true;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EPERM';
  }
}

function takeOver(lockPath: string, staleText: string): void {
  const aside = `${lockPath}.${process.pid}.${randomBytes(6).toString('hex')}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return;
  }
  let moved: string | undefined;
  try {
    moved = readFileSync(aside, 'utf8');
  } catch {
    moved = undefined;
  }
  if (moved !== staleText) {
    // A fresh lock was taken between the look and the move: put it back.
    try {
      linkSync(aside, lockPath);
    } catch {
      // Someone else holds it now; the next attempt finds them.
    }
  }
  unlinkQuietly(aside);
}

function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

/** Blocks this thread (the credentials file is read and written synchronously); Atomics.wait works on Node's main thread. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
