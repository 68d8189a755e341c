import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFileSync, unlinkQuietly } from './atomic-file';
import { runtimeLockHolder } from './runtime-lock';

export const STATUS_FILE_NAME = 'runtime.status.json';

export type RuntimeState = 'starting' | 'registering' | 'connecting' | 'online';

/** What a running runtime says about itself, next to its lock; `svc runtime status` reads it. */
export interface PublishedStatus {
  pid: number;
  started_at: string;
  server: string;
  state: RuntimeState;
  device_id: string | null;
  carrier: 'tcp' | 'quic' | null;
  /** Why the tunnel is not on QUIC in `auto` mode (no QUIC binding here, UDP blocked); null otherwise. */
  carrier_note?: string | null;
  /** Since when the current tunnel is up; null while not online. */
  connected_at: string | null;
  updated_at: string;
}

/**
 * The runtime's side: rewritten atomically (0600) on every change of state or carrier, removed
 * when the runtime stops. A runtime killed with SIGKILL leaves it behind; readers only believe
 * it while the lock's holder is alive and is the pid it names.
 */
export class RuntimeStatusFile {
  readonly path: string;
  private status: PublishedStatus;

  constructor(dir: string, server: string, private readonly onError: (error: Error) => void) {
    this.path = join(dir, STATUS_FILE_NAME);
    const now = new Date().toISOString();
    this.status = { pid: process.pid, started_at: now, server, state: 'starting', device_id: null, carrier: null, connected_at: null, updated_at: now };
    this.write();
  }

  update(change: Partial<Pick<PublishedStatus, 'state' | 'device_id' | 'carrier' | 'carrier_note' | 'connected_at'>>): void {
    this.status = { ...this.status, ...change, updated_at: new Date().toISOString() };
    this.write();
  }

  remove(): void {
    unlinkQuietly(this.path);
  }

  private write(): void {
    try {
      replaceFileSync(this.path, `${JSON.stringify(this.status)}\n`);
    } catch (error) {
      this.onError(error as Error);
    }
  }
}

export interface RunningRuntime {
  running: true;
  pid: number;
  lock: string;
  /** Absent when the runtime has not published one (an older runtime, or a moment after start). */
  status?: PublishedStatus;
  uptime_secs?: number;
}

/** The runtime running on this configuration directory, if any. */
export function readRunningRuntime(dir: string, now = Date.now()): RunningRuntime | { running: false } {
  const holder = runtimeLockHolder(dir);
  if (holder === undefined || !holder.alive) return { running: false };
  let status: PublishedStatus | undefined;
  try {
    const parsed = JSON.parse(readFileSync(join(dir, STATUS_FILE_NAME), 'utf8')) as PublishedStatus;
    if (parsed.pid === holder.pid) status = parsed;
  } catch {
    // Not published (yet): the lock alone says that it runs.
  }
  const started = status ? Date.parse(status.started_at) : NaN;
  return { running: true, pid: holder.pid, lock: holder.path, status, uptime_secs: Number.isNaN(started) ? undefined : Math.max(0, Math.round((now - started) / 1000)) };
}
