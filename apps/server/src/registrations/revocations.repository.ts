import { Injectable } from '@nestjs/common';
import { Storage } from '../storage/storage.port';
import { REVOCATIONS, RevocationRecord } from '../storage/records';

/** Revoked device API keys, newest last; expired records are purged by the retention job. */
@Injectable()
export class RevocationsRepository {
  private readonly revocations;

  constructor(storage: Storage) {
    this.revocations = storage.collection(REVOCATIONS);
  }

  insert(record: RevocationRecord): Promise<void> {
    return this.revocations.insert(record);
  }

  /** Revocations dated `from` or later by processes other than `origin`, oldest first. */
  writtenByOthersFrom(from: Date, origin: string, limit: number): Promise<RevocationRecord[]> {
    return this.revocations.find({ revokedAt: { gte: from }, origin: { ne: origin } }, { sort: { field: 'revokedAt', direction: 'asc' }, limit });
  }

  isRevoked(apiKeyHash: string): Promise<boolean> {
    return this.revocations.count({ apiKeyHash }).then((n) => n > 0);
  }

  purgeExpired(now: Date): Promise<number> {
    return this.revocations.deleteMany({ expiresAt: { lte: now } });
  }
}
