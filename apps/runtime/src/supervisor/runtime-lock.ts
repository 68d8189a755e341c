import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT_CODES, RuntimeExit } from '../runtime-exit';

export const LOCK_FILE_NAME = 'runtime.lock';
const UNUSABLE_DIR = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST']);

interface LockOwner {
  pid: number;
  /** Linux boot id: a pid recorded before a reboot says nothing about the process now using it. */
  boot_id: string | null;
}

export interface RuntimeLock {
  path: string;
  release(): void;
}

/**
 * One runtime per device: `runtime.lock` in the config directory, created with an atomic
 * link(2) so two starters cannot both win. A lock whose process is gone (or from an earlier boot)
 * is stale and taken over; a live one stops the newcomer with the holder's pid.
 */
export function acquireRuntimeLock(dir: string): RuntimeLock {
  const path = join(dir, LOCK_FILE_NAME);
  const mine: LockOwner = { pid: process.pid, boot_id: currentBootId() };
  const candidate = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(candidate, `${JSON.stringify(mine)}\n`, { mode: 0o600 });
  } catch (error) {
    // A directory this account may not use stays so until someone changes it: a configuration error (exit 2), which the unit does not restart on.
    if (!UNUSABLE_DIR.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    throw new RuntimeExit(EXIT_CODES.usage, `Cannot use the configuration directory ${dir}: ${(error as Error).message}; set SVC_CONFIG_DIR (or HOME) to a directory this account may write`);
  }
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(candidate, path);
        return { path, release: () => releaseIfMine(path) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = readOwner(path);
      if (holder === undefined) continue;
      if (isAlive(holder)) {
        throw new RuntimeExit(EXIT_CODES.alreadyRunning, `Another runtime is already running on this device (pid ${holder.pid}, lock ${path})`);
      }
      removeStale(path, holder);
    }
    throw new RuntimeExit(EXIT_CODES.alreadyRunning, `Could not take the runtime lock ${path}: other runtimes keep starting`);
  } finally {
    unlinkQuietly(candidate);
  }
}

/**
 * Moves the stale file aside and checks that what moved is the stale owner we looked at; if a
 * newer runtime took the lock in between, its file is put back.
 */
function removeStale(path: string, stale: LockOwner): void {
  const aside = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  const moved = readOwner(aside);
  if (moved && (moved.pid !== stale.pid || moved.boot_id !== stale.boot_id)) {
    try {
      linkSync(aside, path);
    } catch {
      // A third runtime holds it now; it will be found on the next attempt.
    }
  }
  unlinkQuietly(aside);
}

/** Who holds the lock in `dir` (for `svc runtime status`), and whether that process is alive. */
export function runtimeLockHolder(dir: string): { pid: number; alive: boolean; path: string } | undefined {
  const path = join(dir, LOCK_FILE_NAME);
  const owner = readOwner(path);
  return owner === undefined ? undefined : { pid: owner.pid, alive: isAlive(owner), path };
}

function releaseIfMine(path: string): void {
  if (readOwner(path)?.pid === process.pid) unlinkQuietly(path);
}

function readOwner(path: string): LockOwner | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockOwner>;
    if (Number.isInteger(parsed.pid)) return { pid: parsed.pid!, boot_id: typeof parsed.boot_id === 'string' ? parsed.boot_id : null };
  } catch {
    // Unreadable content: treated as a lock of no live process.
  }
  return { pid: 0, boot_id: null };
}

function isAlive(owner: LockOwner): boolean {
  if (owner.pid <= 0) return false;
  const boot = currentBootId();
  if (owner.boot_id !== null && boot !== null && owner.boot_id !== boot) return false;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function currentBootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
