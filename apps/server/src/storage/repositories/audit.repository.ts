import { Injectable } from '@nestjs/common';
import { Storage, Filter } from '../storage.port';
import { AUDIT, AuditRecord, REPORTS, ReportRecord } from '../records';

export interface AuditQuery {
  deviceId: string;
  since?: Date;
  until?: Date;
  max: number;
}

/** Audit entries and runtime reports: append-only records that expire. */
@Injectable()
export class AuditRepository {
  private readonly audit;
  private readonly reports;

  constructor(storage: Storage) {
    this.audit = storage.collection(AUDIT);
    this.reports = storage.collection(REPORTS);
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

  insertReport(report: ReportRecord): Promise<void> {
    return this.reports.insert(report);
  }

  /** The newest unexpired report of a kind on a subject (e.g. one deployment's status), if any. */
  async latestReport(deviceId: string, kind: string, subject: string, now: Date): Promise<ReportRecord | null> {
    const [report] = await this.reports.find({ deviceId, kind, subject, expiresAt: { gt: now } }, { sort: { field: 'createdAt', direction: 'desc' }, limit: 1 });
    return report ?? null;
  }

  /** A removed device's reports go with it (its audit entries stay, see DeviceRecord.historySince). */
  deleteReports(deviceId: string): Promise<number> {
    return this.reports.deleteMany({ deviceId });
  }

  /** Deletes everything past its retention; MongoDB's TTL index does the same in the background. */
  async purgeExpired(now: Date): Promise<{ audit: number; reports: number }> {
    const audit = await this.audit.deleteMany({ expiresAt: { lte: now } });
    const reports = await this.reports.deleteMany({ expiresAt: { lte: now } });
    return { audit, reports };
  }
}
