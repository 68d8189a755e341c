import { randomUUID } from 'node:crypto';
import type { RegistrationsRepository } from './registrations.repository';

/**
 * Registration requests per source address over a sliding window, counted in storage so that
 * every replica sharing it enforces one limit. A hit is recorded, then the window counted again:
 * of requests racing on several replicas none passes the limit (a race can refuse one too many,
 * never admit one). A source already over the limit is refused without writing anything.
 */
export class RegistrationRateLimiter {
  constructor(
    private readonly repository: RegistrationsRepository,
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Counts one request from `source`; false when it is over the limit. */
  async tryHit(source: string, now: Date): Promise<boolean> {
    const since = new Date(now.getTime() - this.windowMs);
    if ((await this.repository.countHitsSince(source, since)) >= this.limit) return false;
    await this.repository.recordHit({ id: randomUUID(), source, at: now, expiresAt: new Date(now.getTime() + this.windowMs) });
    return (await this.repository.countHitsSince(source, since)) <= this.limit;
  }
}
