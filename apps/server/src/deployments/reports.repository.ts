import { Injectable } from '@nestjs/common';
import { REPORTS, ReportRecord } from '../storage/records';
import { Storage } from '../storage/storage.port';

/** Runtime reports (deployment status): append-only records that expire, owned by deployments. */
@Injectable()
export class ReportsRepository {
  private readonly reports;

  constructor(storage: Storage) {
    this.reports = storage.collection(REPORTS);
  }

  insert(report: ReportRecord): Promise<void> {
    return this.reports.insert(report);
  }

  replaceData(id: string, data: Record<string, unknown>): Promise<boolean> {
    return this.reports.updateOne({ id }, { data });
  }

  /** The newest unexpired report of a kind on a subject (e.g. one deployment's status), if any. */
  async latest(deviceId: string, kind: string, subject: string, now: Date): Promise<ReportRecord | null> {
    const [report] = await this.reports.find({ deviceId, kind, subject, expiresAt: { gt: now } }, { sort: { field: 'createdAt', direction: 'desc' }, limit: 1 });
    return report ?? null;
  }

  /** A removed device's reports go with it (its audit entries stay, see DeviceRecord.historySince). */
  deleteForDevice(deviceId: string): Promise<number> {
    return this.reports.deleteMany({ deviceId });
  }
}
