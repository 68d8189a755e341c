import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { Clock } from '../common/clock';
import { ALL_COLLECTIONS } from './records';
import { CollectionDef, Storage } from './storage.port';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Deletes the records of every collection with an expiry (audit entries, reports, registration
 * requests, revocation records) once past it, at start-up and every hour; AUDIT_RETENTION_DAYS /
 * REPORT_RETENTION_DAYS decide each entry's expiry when written, by the feature that writes it.
 */
@Injectable()
export class RetentionJob implements OnApplicationBootstrap {
  private readonly logger = new Logger(RetentionJob.name);

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.run();
  }

  /** Records deleted, by collection name (`audit`, `reports`, `registrations`, `revocations`). */
  @Interval('retention', HOUR_MS)
  async run(): Promise<Record<string, number>> {
    const now = this.clock.now();
    const purged: Record<string, number> = {};
    for (const def of ALL_COLLECTIONS as readonly CollectionDef[]) {
      if (def.expiresAt) purged[def.name] = await this.storage.collection(def).deleteMany({ [def.expiresAt]: { lte: now } });
    }
    if (Object.values(purged).some((count) => count > 0)) this.logger.log(`retention purge: ${JSON.stringify(purged)}`);
    return purged;
  }
}
