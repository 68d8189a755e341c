import { Injectable, Logger } from '@nestjs/common';
import { escapeControls, type DeploymentStatusReport, type HealthState } from '@svc/common';
import { AuditService } from '../audit/audit.service';
import { ReportStore } from './report-store';
import { Clock } from '../common/clock';
import { DeploymentsRepository } from './deployments.repository';
import { Storage } from '../storage/storage.port';
import { DeploymentChanges } from './deployment-changes';
import { changeDeployments, nextRevision } from './deployment-state';
import { DEPLOYMENT_STATUS_REPORT } from './deployment-status.service';
import { FleetEvents } from '../events/fleet-events';
import { ServerMetrics } from '../common/server-metrics';

const REASON_CHARS = 300;

/**
 * What the server does with a checked report from a device's deployment channel: store it (it
 * expires after REPORT_RETENTION_DAYS), and follow a rollback of the active deployment.
 */
@Injectable()
export class DeploymentReports {
  private readonly logger = new Logger('DeploymentReports');
  /**
   * Device id → the head revision at which a rollback to a deployment that no longer exists was
   * audited: the runtime keeps reporting it while the head stays, and one entry says it.
   */
  private readonly unfollowed = new Map<string, number>();

  constructor(
    private readonly deployments: DeploymentsRepository,
    private readonly audit: AuditService,
    private readonly reports: ReportStore,
    private readonly storage: Storage,
    private readonly changes: DeploymentChanges,
    private readonly clock: Clock,
    private readonly events: FleetEvents,
    private readonly metrics: ServerMetrics,
  ) {}

  /** Reports on deployments the device does not have (removed, or made up) are not kept: false. */
  async store(deviceId: string, report: DeploymentStatusReport): Promise<boolean> {
    const kept = (await this.deployments.find(deviceId, report.deployment_id)) !== null;
    this.metrics.deploymentReports.inc({ status: report.status, kept: String(kept) });
    if (!kept) {
      this.logger.debug(`dropped a report of device ${deviceId} on unknown deployment ${report.deployment_id}`);
      return false;
    }
    const previous = await this.reports.latestReport(deviceId, DEPLOYMENT_STATUS_REPORT, report.deployment_id);
    await this.reports.recordReport(deviceId, DEPLOYMENT_STATUS_REPORT, report as unknown as Record<string, unknown>, report.deployment_id);
    if (report.status === 'rolled_back' && report.rollback) await this.followRollback(deviceId, report.deployment_id, report.rollback);
    // Told once everything this report changes is stored (the head moved back too): a page that
    // reloads on the event reads the new state.
    const summary = statusSummary(report);
    if (!previous || JSON.stringify(statusSummary(previous.data as unknown as DeploymentStatusReport)) !== JSON.stringify(summary)) {
      this.events.emit({ type: 'deployment.status', audience: { deviceId }, deviceId, details: summary });
    }
    return true;
  }

  /**
   * A repeat of the newest stored report on its deployment (same status, steps and health) with
   * newer log tails and time: it takes that report's place, so a status shows a job's latest output
   * without a new record every minute. False when nothing is stored on that deployment.
   */
  refresh(deviceId: string, report: DeploymentStatusReport): Promise<boolean> {
    return this.reports.replaceLatest(deviceId, DEPLOYMENT_STATUS_REPORT, report as unknown as Record<string, unknown>, report.deployment_id);
  }

  /**
   * The device rolled its active deployment back (health-gated activation failed): the head goes
   * back to the deployment it now runs, if that still exists, at a new revision, so the desired
   * state and the device agree again. A report on a deployment that is no longer active (a repeat,
   * or one the user replaced meanwhile) changes nothing.
   */
  private async followRollback(deviceId: string, from: string, rollback: NonNullable<DeploymentStatusReport['rollback']>): Promise<void> {
    const to = rollback.to_deployment_id;
    const reason = shorten(escapeControls(rollback.reason));
    const moved = await changeDeployments(this.storage, async () => {
      const head = await this.deployments.head(deviceId);
      if (head.activeDeploymentId !== from) return false;
      const exists = to === null || (await this.deployments.update(deviceId, to, { activatedAt: this.clock.now() }));
      if (!exists) {
        if (this.unfollowed.get(deviceId) === head.revision) return false;
        await this.record(deviceId, `device rolled back deployment ${from} to ${to}, which no longer exists; ${from} stays active: ${reason}`);
        this.unfollowed.set(deviceId, head.revision);
        return false;
      }
      this.unfollowed.delete(deviceId);
      const lastRollback = { deployment_id: from, reason, at: this.clock.now().toISOString() };
      await this.deployments.moveHead(head, { activeDeploymentId: to, revision: nextRevision(head, this.clock), lastRollback });
      await this.record(deviceId, `device rolled back deployment ${from} to ${to ?? 'none'}: ${reason}`);
      return true;
    });
    if (moved) {
      this.logger.log(`device ${deviceId} rolled back deployment ${from} to ${to ?? 'none'}`);
      this.changes.changed(deviceId);
    }
  }

  private record(deviceId: string, details: string): Promise<void> {
    return this.audit.record(`device:${deviceId}`, 'device.deployment_rolled_back', { deviceId, details });
  }
}

/**
 * What deployment.status tells: the deployment's state, its jobs' states and health, and the
 * worst of their health. Told when this changes, not on every report (a report repeats every minute).
 */
function statusSummary(report: DeploymentStatusReport): Record<string, unknown> {
  const jobs = (report.jobs ?? []).map((job) => ({ id: job.id, status: job.status, health: job.health }));
  const worst = Math.min(...jobs.map((job) => HEALTH_WORST_FIRST.indexOf(job.health as HealthState)), HEALTH_WORST_FIRST.length - 1);
  return { deployment_id: report.deployment_id, state: report.status, health: jobs.length === 0 ? 'unknown' : HEALTH_WORST_FIRST[worst], jobs };
}

const HEALTH_WORST_FIRST: readonly HealthState[] = ['unhealthy', 'unknown', 'healthy'];

function shorten(text: string): string {
  return text.length > REASON_CHARS ? `${text.slice(0, REASON_CHARS)}…` : text;
}
