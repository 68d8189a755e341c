import { Injectable } from '@nestjs/common';
import { Storage, Filter } from '../storage/storage.port';
import { AUDIT, AuditRecord } from '../storage/records';

export interface AuditQuery {
  deviceId: string;
  since?: Date;
  until?: Date;
  max: number;
}

/** Audit entries: append-only records that expire. */
@Injectable()
export class AuditRepository {
  private readonly audit;

  constructor(storage: Storage) {
    this.audit = storage.collection(AUDIT);
  }

  insert(entry: AuditRecord): Promise<void> {
    return this.audit.insert(entry);
  }

  /** Newest first, within [since, until). */
  forDevice(query: AuditQuery): Promise<AuditRecord[]> {
    const filter: Filter<AuditRecord> = { deviceId: query.deviceId };
    if (query.since || query.until) filter.timestamp = { gte: query.since, lt: query.until };
    return this.audit.find(filter, { sort: { field: 'timestamp', direction: 'desc' }, limit: query.max });
  }

  /** The newest entry of an action for a device, if any. */
  async latest(deviceId: string, action: string): Promise<AuditRecord | null> {
    const [entry] = await this.audit.find({ deviceId, action }, { sort: { field: 'timestamp', direction: 'desc' }, limit: 1 });
    return entry ?? null;
  }

  /** A device id's `device.removed` entries, newest first. */
  removals(deviceId: string): Promise<AuditRecord[]> {
    return this.audit.find({ deviceId, action: 'device.removed' }, { sort: { field: 'timestamp', direction: 'desc' } });
  }
}
