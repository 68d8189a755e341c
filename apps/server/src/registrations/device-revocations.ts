import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { Clock } from '../common/clock';
import { RevocationsRepository } from './revocations.repository';
import type { RevocationRecord } from '../storage/records';
import type { RevocationFeed } from '../relay/tunnel-ports';
import { ReplicaEvents } from '../replicas/replica-events';

type RevocationListener = (deviceId: string) => void | Promise<void>;

/** How often a replica looks for revocations written by the others. */
export const REVOCATION_SWEEP_MS = 5_000;
/**
 * Records carry their writer's clock and become visible when the write lands, so a sweep reads
 * this far behind the previous one: a slow write, or a replica whose clock is up to this much
 * behind, is still seen. Record ids already announced are remembered for the window's length.
 */
export const REVOCATION_SWEEP_OVERLAP_MS = 60_000;
export const REVOCATION_SWEEP_PAGE = 1000;
/** Longer than any tunnel can stay up unnoticed; then the record is only history. */
const REVOCATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * A device's API key stops being valid when the device is removed or re-keyed. The decision is
 * written to storage (so every replica learns it) and announced to this process's listeners at
 * once (the relay closes the device's live tunnel). Other replicas hear it at once through
 * ReplicaEvents when replicas share NATS, and in any case pick it up in `sweep`.
 */
@Injectable()
export class DeviceRevocations implements RevocationFeed {
  private readonly logger = new Logger(DeviceRevocations.name);
  private readonly listeners: RevocationListener[] = [];
  /** Identifies this process in the records it writes. */
  readonly origin = randomUUID();
  /** Local time the previous sweep started (then: when this process started). */
  private previousSweep: number;
  /** Other replicas' records already announced here: id → revokedAt (ms). */
  private readonly announced = new Map<string, number>();
  private sweeping: Promise<number> | null = null;

  constructor(
    private readonly revocations: RevocationsRepository,
    private readonly clock: Clock,
    /** Null without NATS_URL (one process); absent in unit specs. */
    @Inject(ReplicaEvents) private readonly events: ReplicaEvents | null = null,
  ) {
    this.previousSweep = clock.now().getTime();
    events?.subscribe('device.revoked', (heard) => void this.announce(heard.id, heard.deviceId, Date.parse(heard.revokedAt)));
  }

  onRevoked(listener: RevocationListener): void {
    this.listeners.push(listener);
  }

  async revoked(device: { id: string; apiKeyHash: string }, reason: RevocationRecord['reason']): Promise<void> {
    const now = this.clock.now();
    const id = randomUUID();
    await this.revocations.insert({
      id,
      deviceId: device.id,
      apiKeyHash: device.apiKeyHash,
      reason,
      origin: this.origin,
      revokedAt: now,
      expiresAt: new Date(now.getTime() + REVOCATION_TTL_MS),
    });
    this.events?.publish('device.revoked', { id, deviceId: device.id, revokedAt: now.toISOString() });
    await this.notify(device.id);
  }

  /**
   * Acts on revocations other replicas wrote since the last sweep (see REVOCATION_SWEEP_OVERLAP_MS);
   * answers how many. A sweep still running when the next is due is joined, not doubled.
   */
  @Interval('revocation-sweep', REVOCATION_SWEEP_MS)
  sweep(): Promise<number> {
    this.sweeping ??= this.sweepOnce().finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  private async sweepOnce(): Promise<number> {
    const startedAt = this.clock.now().getTime();
    const windowStart = this.previousSweep - REVOCATION_SWEEP_OVERLAP_MS;
    let fresh = 0;
    let from = new Date(windowStart);
    for (;;) {
      const page = await this.revocations.writtenByOthersFrom(from, this.origin, REVOCATION_SWEEP_PAGE);
      const unseen = page.filter((record) => !this.announced.has(record.id));
      for (const record of unseen) await this.announce(record.id, record.deviceId, record.revokedAt.getTime());
      fresh += unseen.length;
      // Pages continue from the last record's instant; a full page of known records means more than a
      // page of them share that instant, and reading on would only return them again.
      if (page.length < REVOCATION_SWEEP_PAGE || unseen.length === 0) break;
      from = page[page.length - 1].revokedAt;
    }
    for (const [id, revokedAt] of this.announced) if (revokedAt < windowStart) this.announced.delete(id);
    this.previousSweep = Math.max(this.previousSweep, startedAt);
    return fresh;
  }

  /** Acts once on another replica's revocation, whether heard as an event or found by the sweep. */
  private async announce(id: string, deviceId: string, revokedAt: number): Promise<void> {
    if (this.announced.has(id)) return;
    this.announced.set(id, revokedAt);
    await this.notify(deviceId);
  }

  private async notify(deviceId: string): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener(deviceId);
      } catch (err) {
        this.logger.error(`revocation listener failed for device ${deviceId}: ${(err as Error).message}`);
      }
    }
  }
}
