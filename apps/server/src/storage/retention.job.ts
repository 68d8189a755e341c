import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { Clock } from '../common/clock';
import { AuditRepository } from '../storage/repositories/audit.repository';
import { RegistrationsRepository } from '../storage/repositories/registrations.repository';
import { RevocationsRepository } from '../storage/repositories/revocations.repository';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Deletes audit entries, reports, registration requests and revocation records past their expiry, at start-up and
 * every hour (AUDIT_RETENTION_DAYS / REPORT_RETENTION_DAYS decide each entry's expiry when written).
 */
@Injectable()
export class RetentionJob implements OnApplicationBootstrap {
  private readonly logger = new Logger(RetentionJob.name);

  constructor(
    private readonly audit: AuditRepository,
    private readonly registrations: RegistrationsRepository,
    private readonly revocations: RevocationsRepository,
    private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.run();
  }

  @Interval('retention', HOUR_MS)
  async run(): Promise<{ audit: number; reports: number; registrations: number; revocations: number }> {
    const now = this.clock.now();
    const purged = {
      ...(await this.audit.purgeExpired(now)),
      registrations: await this.registrations.purgeExpired(now),
      revocations: await this.revocations.purgeExpired(now),
    };
    if (purged.audit + purged.reports + purged.registrations + purged.revocations > 0) this.logger.log(`retention purge: ${JSON.stringify(purged)}`);
    return purged;
  }
}
