import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';

/** One audit entry per (user, device, target) per window: a browser or `docker` opens dozens of connections per use. */
export const FORWARD_AUDIT_WINDOW_MS = 60_000;
/** Keys remembered at most; beyond it the oldest are dropped (which at worst writes an entry early). */
const MAX_KEYS = 10_000;

/**
 * Decides whether a forward stream (or a container engine stream) gets an audit entry. A forward is used through many short
 * connections (HTTP clients, `docker`, `ssh` with multiplexing), so an entry per stream would
 * drown the device's log; an entry per key per minute still shows who reached what, and when.
 */
@Injectable()
export class ForwardAuditThrottle {
  /** key → when its last entry was written; insertion order is recency order. */
  private readonly lastWritten = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  shouldRecord(actor: string, deviceId: string, target: string): boolean {
    const now = this.clock.now().getTime();
    const key = `${actor}\n${deviceId}\n${target}`;
    const last = this.lastWritten.get(key);
    if (last !== undefined && now - last < FORWARD_AUDIT_WINDOW_MS) return false;
    this.lastWritten.delete(key);
    this.lastWritten.set(key, now);
    if (this.lastWritten.size > MAX_KEYS) this.lastWritten.delete(this.lastWritten.keys().next().value!);
    return true;
  }
}
