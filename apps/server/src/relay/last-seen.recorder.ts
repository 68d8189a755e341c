import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../common/clock';
import { DevicesRepository } from '../storage/repositories/devices.repository';
import { SYSTEM_ACCESS } from '../storage/repositories/device-access-scope';

/** At most one `lastSeen` write per device in this interval, however often it reconnects. */
export const LAST_SEEN_MIN_INTERVAL_MS = 30_000;

/**
 * Writes devices' `lastSeen` on tunnel connect and disconnect, throttled per device so that a
 * flapping device or 10,000 devices reconnecting after a restart do not hammer the store. A touch
 * inside the interval is not lost: it is written when the interval ends (trailing write).
 */
@Injectable()
export class LastSeenRecorder implements OnApplicationShutdown {
  private readonly lastWrite = new Map<string, number>();
  private readonly trailing = new Map<string, NodeJS.Timeout>();
  private readonly logger = new Logger('LastSeenRecorder');

  constructor(
    private readonly devices: DevicesRepository,
    private readonly clock: Clock,
  ) {}

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
