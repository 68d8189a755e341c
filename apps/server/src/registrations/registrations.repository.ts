import { Injectable } from '@nestjs/common';
import { Filter, Storage } from '../storage/storage.port';
import { REGISTRATION_HITS, REGISTRATIONS, RegistrationHitRecord, RegistrationRecord } from '../storage/records';

@Injectable()
export class RegistrationsRepository {
  private readonly registrations;
  private readonly hits;

  constructor(storage: Storage) {
    this.registrations = storage.collection(REGISTRATIONS);
    this.hits = storage.collection(REGISTRATION_HITS);
  }

  recordHit(hit: RegistrationHitRecord): Promise<void> {
    return this.hits.insert(hit);
  }

  countHitsSince(source: string, since: Date): Promise<number> {
    return this.hits.count({ source, at: { gt: since } });
  }

  insert(record: RegistrationRecord): Promise<void> {
    return this.registrations.insert(record);
  }

  /** A request that has not expired yet, whatever its status. */
  findLive(id: string, now: Date): Promise<RegistrationRecord | null> {
    return this.registrations.findOne({ id, expiresAt: { gt: now } });
  }

  pendingForScopes(ownerScopes: readonly string[], now: Date): Promise<RegistrationRecord[]> {
    if (ownerScopes.length === 0) return Promise.resolve([]);
    return this.registrations.find(
      { ownerScope: { in: [...ownerScopes] }, status: 'pending', expiresAt: { gt: now } },
      { sort: { field: 'createdAt', direction: 'asc' } },
    );
  }

  /** Every live pending request, whoever may decide it (the metrics gauge). */
  countPending(now: Date): Promise<number> {
    return this.registrations.count({ status: 'pending', expiresAt: { gt: now } });
  }

  countPendingForScope(ownerScope: string, now: Date): Promise<number> {
    return this.registrations.count({ ownerScope, status: 'pending', expiresAt: { gt: now } });
  }

  countPendingForScopeFromSource(ownerScope: string, sourceAddress: string, now: Date): Promise<number> {
    return this.registrations.count({ ownerScope, status: 'pending', sourceAddress, expiresAt: { gt: now } });
  }

  /** The live pending requests for one device id, oldest first. */
  pendingForDevice(deviceId: string, now: Date): Promise<RegistrationRecord[]> {
    return this.registrations.find({ deviceId, status: 'pending', expiresAt: { gt: now } }, { sort: { field: 'createdAt', direction: 'asc' } });
  }

  /** Conditional update: true only for the caller whose `expected` state still held. */
  transition(id: string, expected: Filter<RegistrationRecord>, set: Partial<RegistrationRecord>): Promise<boolean> {
    return this.registrations.updateOne({ ...expected, id }, set);
  }

  /** Organization renamed: its requests follow. */
  renameOwnerScope(from: string, to: string): Promise<number> {
    return this.registrations.updateMany({ ownerScope: from }, { ownerScope: to });
  }

  /** Organization deleted: nobody can approve its pending requests any more. */
  rejectPendingForOwnerScope(ownerScope: string, decidedBy: string): Promise<number> {
    return this.registrations.updateMany({ ownerScope, status: 'pending' }, { status: 'rejected', decidedBy });
  }
}
