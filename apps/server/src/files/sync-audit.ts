import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import type { UserPrincipal } from '../auth/principal';

/** A sync that saw no call for this long is audited as it stands (its client may have gone). */
export const SYNC_IDLE_FLUSH_MS = 60_000;
/** Open syncs one user may have at once; the oldest is audited and closed to make room. */
const MAX_OPEN_PER_USER = 32;

export interface SyncCounts {
  written: number;
  writtenBytes: number;
  read: number;
  readBytes: number;
  deleted: number;
}

interface OpenSync extends SyncCounts {
  principal: UserPrincipal;
  deviceId: string;
  root: string;
  timer: NodeJS.Timeout;
}

/**
 * One `device.files_synced` audit entry per sync instead of one per file: the server counts
 * what it relayed for the calls that carry the same sync id (so the counts are what happened,
 * not what the client claims) and writes the entry when the client ends the sync, after a minute
 * without calls, or at shutdown. Nothing escapes the audit by claiming to be part of a sync.
 */
@Injectable()
export class SyncAudit implements OnModuleDestroy {
  private readonly open = new Map<string, OpenSync>();
  private readonly logger = new Logger('SyncAudit');

  constructor(private readonly audit: AuditService) {}

  count(principal: UserPrincipal, deviceId: string, syncId: string, root: string, change: Partial<SyncCounts>): void {
    const key = keyOf(principal, deviceId, syncId);
    let entry = this.open.get(key);
    if (!entry) {
      this.makeRoom(principal);
      entry = { principal, deviceId, root, written: 0, writtenBytes: 0, read: 0, readBytes: 0, deleted: 0, timer: this.idleTimer(key) };
      this.open.set(key, entry);
    } else {
      entry.timer.refresh();
    }
    for (const [field, value] of Object.entries(change) as [keyof SyncCounts, number][]) entry[field] += value;
  }

  /** Writes the sync's entry now (when it changed anything) and forgets it. */
  async end(principal: UserPrincipal, deviceId: string, syncId: string): Promise<SyncCounts> {
    const key = keyOf(principal, deviceId, syncId);
    const entry = this.open.get(key);
    if (!entry) return { written: 0, writtenBytes: 0, read: 0, readBytes: 0, deleted: 0 };
    await this.flush(key);
    const { written, writtenBytes, read, readBytes, deleted } = entry;
    return { written, writtenBytes, read, readBytes, deleted };
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.open.keys()].map((key) => this.flush(key)));
  }

  private idleTimer(key: string): NodeJS.Timeout {
    const timer = setTimeout(() => void this.flush(key), SYNC_IDLE_FLUSH_MS);
    timer.unref();
    return timer;
  }

  private makeRoom(principal: UserPrincipal): void {
    const mine = [...this.open.entries()].filter(([, entry]) => entry.principal.email === principal.email);
    if (mine.length >= MAX_OPEN_PER_USER) void this.flush(mine[0][0]);
  }

  private async flush(key: string): Promise<void> {
    const entry = this.open.get(key);
    if (!entry) return;
    this.open.delete(key);
    clearTimeout(entry.timer);
    if (entry.written + entry.read + entry.deleted === 0) return;
    try {
      await this.audit.record(entry.principal, 'device.files_synced', { deviceId: entry.deviceId, details: describe(entry) });
    } catch (err) {
      this.logger.error(`audit of a sync failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

function keyOf(principal: UserPrincipal, deviceId: string, syncId: string): string {
  return `${principal.email}\n${deviceId}\n${syncId}`;
}

function describe(entry: OpenSync): string {
  const parts: string[] = [];
  if (entry.written > 0) parts.push(`${entry.written} written (${entry.writtenBytes} bytes)`);
  if (entry.read > 0) parts.push(`${entry.read} read (${entry.readBytes} bytes)`);
  if (entry.deleted > 0) parts.push(`${entry.deleted} deleted`);
  return `sync of ${entry.root}: ${parts.join(', ')}`;
}
