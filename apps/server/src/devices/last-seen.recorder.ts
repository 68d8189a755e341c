import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { TunnelPresenceListener } from '../relay/tunnel-ports';
import { TunnelRegistry } from '../relay/tunnel-registry.service';
import { DevicesRepository } from './records/devices.repository';

/** At most one `lastSeen` write per device in this interval, however often it reconnects. */
export const LAST_SEEN_MIN_INTERVAL_MS = 30_000;
/** Devices written by one storage call of the periodic sweep. */
const SWEEP_CHUNK = 500;

/**
 * Keeps devices' `lastSeen` at their last sign of life: written on tunnel connect and
 * disconnect, and for every connected device once per LAST_SEEN_MIN_INTERVAL_MS (a tunnel stays
 * registered only while its heartbeats are answered), so an offline device shows when it was
 * last heard from, not when it connected. Connects and disconnects are throttled per device so
 * that a flapping device or 10,000 devices reconnecting after a restart do not hammer the store
 * (a touch inside the interval is written when the interval ends); the sweep writes the connected
 * devices in a few batched calls, not one per device.
 */
@Injectable()
export class LastSeenRecorder implements TunnelPresenceListener, OnApplicationShutdown {
  private readonly lastWrite = new Map<string, number>();
  private readonly trailing = new Map<string, NodeJS.Timeout>();
  private readonly connectedIds = new Set<string>();
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
    if (this.trailing.has(deviceId)) return;
    const wait = (this.lastWrite.get(deviceId) ?? -Infinity) + LAST_SEEN_MIN_INTERVAL_MS - Date.now();
    if (wait <= 0) {
      void this.write([deviceId]);
      return;
    }
    const timer = setTimeout(() => {
      this.trailing.delete(deviceId);
      void this.write([deviceId]);
    }, wait);
    timer.unref();
    this.trailing.set(deviceId, timer);
  }

  /** Pending trailing writes are done now rather than dropped. */
  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweepTimer);
    const pending = [...this.trailing.keys()];
    for (const timer of this.trailing.values()) clearTimeout(timer);
    this.trailing.clear();
    await this.write(pending);
  }

  private async sweep(): Promise<void> {
    const ids = [...this.connectedIds];
    for (let i = 0; i < ids.length; i += SWEEP_CHUNK) await this.write(ids.slice(i, i + SWEEP_CHUNK));
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
