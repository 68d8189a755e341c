import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { Clock } from '../common/clock';
import { RevocationsRepository } from '../storage/repositories/revocations.repository';
import type { RevocationRecord } from '../storage/records';

type RevocationListener = (deviceId: string) => void | Promise<void>;

/** How often a replica looks for revocations written by the others. */
export const REVOCATION_SWEEP_MS = 5_000;
/** Longer than any tunnel can stay up unnoticed; then the record is only history. */
const REVOCATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * A device's API key stops being valid when the device is removed or re-keyed. The decision is
 * written to storage (so every replica learns it) and announced to this process's listeners at
 * once (the relay closes the device's live tunnel). Other replicas pick it up in `sweep`.
 */
@Injectable()
export class DeviceRevocations {
  private readonly logger = new Logger(DeviceRevocations.name);
  private readonly listeners: RevocationListener[] = [];
  /** Identifies this process in the records it writes. */
  readonly origin = randomUUID();
  private sweptUntil: Date;

  constructor(
    private readonly revocations: RevocationsRepository,
    private readonly clock: Clock,
  ) {
    this.sweptUntil = clock.now();
  }

  onRevoked(listener: RevocationListener): void {
    this.listeners.push(listener);
  }

  async revoked(device: { id: string; apiKeyHash: string }, reason: RevocationRecord['reason']): Promise<void> {
    const now = this.clock.now();
    await this.revocations.insert({
      id: randomUUID(),
      deviceId: device.id,
      apiKeyHash: device.apiKeyHash,
      reason,
      origin: this.origin,
      revokedAt: now,
      expiresAt: new Date(now.getTime() + REVOCATION_TTL_MS),
    });
    await this.notify(device.id);
  }

  /** Acts on revocations other replicas wrote since the last sweep. */
  @Interval('revocation-sweep', REVOCATION_SWEEP_MS)
  async sweep(): Promise<number> {
    const records = await this.revocations.writtenByOthersSince(this.sweptUntil, this.origin);
    for (const record of records) {
      await this.notify(record.deviceId);
      this.sweptUntil = record.revokedAt;
    }
    return records.length;
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
