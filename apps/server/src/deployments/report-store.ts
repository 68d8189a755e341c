import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { Clock, DAY_MS } from '../common/clock';
import { ReportsRepository } from './reports.repository';

const REPORT_TIMES_KEPT = 100_000;

/** Runtime reports: stored on arrival, expiring after REPORT_RETENTION_DAYS, read newest first. */
@Injectable()
export class ReportStore {
  /** Device id → time of its last report (bounded, least recently reporting devices forgotten first). */
  private readonly lastReportAt = new Map<string, number>();

  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly repository: ReportsRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Stores a runtime report; it expires after REPORT_RETENTION_DAYS. `subject` names what it is
   * about within its kind (a deployment_status report: the deployment id), for `latestReport`.
   */
  async recordReport(deviceId: string, kind: string, data: Record<string, unknown>, subject?: string): Promise<void> {
    const createdAt = this.reportTime(deviceId);
    await this.repository.insert({
      id: randomUUID(),
      deviceId,
      kind,
      ...(subject === undefined ? {} : { subject }),
      createdAt,
      data,
      expiresAt: new Date(createdAt.getTime() + this.config.reportRetentionDays * DAY_MS),
    });
  }

  /** Replaces the data of the newest unexpired report of a kind on a subject (its times stay); false when there is none. */
  async replaceLatest(deviceId: string, kind: string, data: Record<string, unknown>, subject: string): Promise<boolean> {
    const latest = await this.repository.latest(deviceId, kind, subject, this.clock.now());
    return latest !== null && this.repository.replaceData(latest.id, data);
  }

  /** The newest report of a kind on a subject that has not expired, or null. */
  async latestReport(deviceId: string, kind: string, subject: string): Promise<{ createdAt: Date; data: Record<string, unknown> } | null> {
    const report = await this.repository.latest(deviceId, kind, subject, this.clock.now());
    return report && { createdAt: report.createdAt, data: report.data };
  }

  /**
   * Now, or a millisecond after this device's last report when that is later: "the newest report"
   * is the one received last, even for reports within one millisecond (or one tick of a test clock).
   */
  private reportTime(deviceId: string): Date {
    const at = Math.max(this.clock.now().getTime(), (this.lastReportAt.get(deviceId) ?? 0) + 1);
    this.lastReportAt.delete(deviceId);
    this.lastReportAt.set(deviceId, at);
    if (this.lastReportAt.size > REPORT_TIMES_KEPT) this.lastReportAt.delete(this.lastReportAt.keys().next().value!);
    return new Date(at);
  }
}
