import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { TunnelPresenceListener } from '../relay/tunnel-ports';
import { TunnelRegistry } from '../relay/tunnel-registry.service';
import { DevicesRepository } from './records/devices.repository';

/** At most one `lastSeen` write per device in this interval, however often it reconnects. */
export const LAST_SEEN_MIN_INTERVAL_MS = 30_000;
/** Devices written by one storage call (of the sweep, or of the touches batched in one turn). */
const WRITE_CHUNK = 500;

/**
 * Keeps devices' `lastSeen` at their last sign of life: written on tunnel connect and
 * disconnect, and for every connected device once per LAST_SEEN_MIN_INTERVAL_MS (a tunnel stays
 * registered only while its heartbeats are answered), so an offline device shows when it was
 * last heard from, not when it connected. Connects and disconnects are throttled per device so
 * that a flapping device or 10,000 devices reconnecting after a restart do not hammer the store
 * (a touch inside the interval is written when the interval ends). Writes are batched: the
 * touches of one turn of the event loop (the 10,000 disconnects of a server stop, a reconnect
 * wave) go to storage together, in calls of WRITE_CHUNK devices, as do the sweep's.
 */
@Injectable()
export class LastSeenRecorder implements TunnelPresenceListener, OnApplicationShutdown {
  private readonly lastWrite = new Map<string, number>();
  private readonly trailing = new Map<string, NodeJS.Timeout>();
  private readonly connectedIds = new Set<string>();
  /** Touched devices due for a write, written together once this turn of the event loop ends. */
  private readonly due = new Set<string>();
  private flushScheduled = false;
  private readonly inFlight = new Set<Promise<void>>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private readonly logger = new Logger('LastSeenRecorder');

  constructor(
    private readonly devices: DevicesRepository,
    private readonly clock: Clock,
    registry: TunnelRegistry,
  ) {
    registry.onPresence(this);
  }

  /** The device's tunnel is up: seen now, and at every sweep until `disconnected`. */
  connected(deviceId: string): void {
    this.connectedIds.add(deviceId);
    this.sweepTimer ??= setInterval(() => void this.sweep(), LAST_SEEN_MIN_INTERVAL_MS).unref();
    this.touch(deviceId);
  }

  /** The device's tunnel is gone: seen now for the last time. */
  disconnected(deviceId: string): void {
    this.connectedIds.delete(deviceId);
    this.touch(deviceId);
  }

  touch(deviceId: string): void {
    if (this.trailing.has(deviceId) || this.due.has(deviceId)) return;
    const wait = (this.lastWrite.get(deviceId) ?? -Infinity) + LAST_SEEN_MIN_INTERVAL_MS - Date.now();
    if (wait <= 0) {
      this.writeSoon(deviceId);
      return;
    }
    const timer = setTimeout(() => {
      this.trailing.delete(deviceId);
      this.writeSoon(deviceId);
    }, wait);
    timer.unref();
    this.trailing.set(deviceId, timer);
  }

  /** Pending trailing and batched writes are done now rather than dropped. */
  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweepTimer);
    for (const [deviceId, timer] of this.trailing) {
      clearTimeout(timer);
      this.due.add(deviceId);
    }
    this.trailing.clear();
    await this.flush();
    await Promise.all(this.inFlight);
  }

  private writeSoon(deviceId: string): void {
    this.due.add(deviceId);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    const ids = [...this.due];
    this.due.clear();
    await this.writeChunks(ids);
  }

  private async sweep(): Promise<void> {
    await this.writeChunks([...this.connectedIds]);
  }

  private async writeChunks(ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += WRITE_CHUNK) {
      const written = this.write(ids.slice(i, i + WRITE_CHUNK));
      this.inFlight.add(written);
      await written.finally(() => this.inFlight.delete(written));
    }
  }

  private async write(deviceIds: string[]): Promise<void> {
    if (deviceIds.length === 0) return;
    const now = Date.now();
    for (const id of deviceIds) this.lastWrite.set(id, now);
    try {
      await this.devices.recordLastSeen(deviceIds, this.clock.now());
    } catch (err) {
      this.logger.warn(`could not record last_seen of ${deviceIds.length} device(s): ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
