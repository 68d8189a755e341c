import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../common/clock';
import { DevicesRepository } from '../storage/repositories/devices.repository';
import { SYSTEM_ACCESS } from '../storage/repositories/device-access-scope';

/** At most one `lastSeen` write per device in this interval, however often it reconnects. */
export const LAST_SEEN_MIN_INTERVAL_MS = 30_000;

/**
 * Keeps devices' `lastSeen` at their last sign of life: written on tunnel connect and
 * disconnect, and every LAST_SEEN_MIN_INTERVAL_MS while the tunnel is up (a tunnel stays
 * registered only while its heartbeats are answered), so an offline device shows when it was
 * last heard from, not when it connected. Writes are throttled per device so that a flapping
 * device or 10,000 devices reconnecting after a restart do not hammer the store; a touch inside
 * the interval is not lost but written when the interval ends (trailing write).
 */
@Injectable()
export class LastSeenRecorder implements OnApplicationShutdown {
  private readonly lastWrite = new Map<string, number>();
  private readonly trailing = new Map<string, NodeJS.Timeout>();
  private readonly alive = new Map<string, NodeJS.Timeout>();
  private readonly logger = new Logger('LastSeenRecorder');

  constructor(
    private readonly devices: DevicesRepository,
    private readonly clock: Clock,
  ) {}

  /** The device's tunnel is up: seen now, and again every interval until `disconnected`. */
  connected(deviceId: string): void {
    this.touch(deviceId);
    clearInterval(this.alive.get(deviceId));
    const timer = setInterval(() => this.touch(deviceId), LAST_SEEN_MIN_INTERVAL_MS);
    timer.unref();
    this.alive.set(deviceId, timer);
  }

  /** The device's tunnel is gone: seen now for the last time. */
  disconnected(deviceId: string): void {
    clearInterval(this.alive.get(deviceId));
    this.alive.delete(deviceId);
    this.touch(deviceId);
  }

  touch(deviceId: string): void {
    if (this.trailing.has(deviceId)) return;
    const wait = (this.lastWrite.get(deviceId) ?? -Infinity) + LAST_SEEN_MIN_INTERVAL_MS - Date.now();
    if (wait <= 0) {
      void this.write(deviceId);
      return;
    }
    const timer = setTimeout(() => {
      this.trailing.delete(deviceId);
      void this.write(deviceId);
    }, wait);
    timer.unref();
    this.trailing.set(deviceId, timer);
  }

  /** Pending trailing writes are done now rather than dropped. */
  async onApplicationShutdown(): Promise<void> {
    for (const timer of this.alive.values()) clearInterval(timer);
    this.alive.clear();
    const pending = [...this.trailing.entries()];
    this.trailing.clear();
    for (const [, timer] of pending) clearTimeout(timer);
    await Promise.all(pending.map(([deviceId]) => this.write(deviceId)));
  }

  private async write(deviceId: string): Promise<void> {
    this.lastWrite.set(deviceId, Date.now());
    try {
      await this.devices.update(SYSTEM_ACCESS, deviceId, { lastSeen: this.clock.now() });
    } catch (err) {
      this.logger.warn(`could not record last_seen of ${deviceId}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
