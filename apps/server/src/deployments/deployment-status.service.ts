import { Injectable } from '@nestjs/common';
import { capabilityOf, DeploymentStatus, DeploymentStatusReport, NoActiveDeploymentError, withoutLogTails } from '@svc/common';
import { ReportStore } from './report-store';
import { Handles, OperationCall } from '../authorization/catalog-controller';
import { AccessPolicy, AuthorizedDevice } from '../authorization/access-policy.service';
import { Clock } from '../common/clock';
import { runBatch } from '../devices/batch';
import { DevicePresence, presenceIn } from '../devices/device-presence';
import type { DeploymentHeadRecord, DeploymentRecord } from '../storage/records';
import { DeploymentsRepository } from './deployments.repository';
import { accessResolver, deploymentNotFound } from './deployment-refs';
import { HeardReport, isStale, ReportFreshness } from './report-freshness';

/** The report kind (ReportRecord.kind) of a runtime's deployment status; its subject is the deployment id. */
export const DEPLOYMENT_STATUS_REPORT = 'deployment_status';

/**
 * device_deployment_status: the newest report the device sent on the deployment (the active one
 * unless named; after a rollback to no deployment, the one rolled back), kept
 * REPORT_RETENTION_DAYS, with how fresh it is (online, stale, reported_at) and, on the active
 * deployment, the rollback that made it active. Before its first report a deployment is
 * `pending`. A caller without `device:deploy` gets no log tails (what the jobs printed).
 */
@Injectable()
export class DeploymentStatusService {
  constructor(
    private readonly policy: AccessPolicy,
    private readonly deployments: DeploymentsRepository,
    private readonly reports: ReportStore,
    private readonly presence: DevicePresence,
    private readonly freshness: ReportFreshness,
    private readonly clock: Clock,
  ) {}

  /** device_deployment_status for `device` or `devices`. */
  @Handles('device_deployment_status')
  status({ principal, input: target }: OperationCall<'device_deployment_status'>) {
    return runBatch(target, {
      resolve: accessResolver(this.policy, principal, capabilityOf('device_deployment_status')),
      run: async (access) => {
        const status = await this.statusOf(access, target.deployment_id);
        return this.policy.readsDeploymentSecrets(access) ? status : withoutLogTails(status);
      },
    });
  }

  private async statusOf({ device }: AuthorizedDevice, deploymentId?: string): Promise<DeploymentStatus> {
    const head = await this.deployments.head(device.id);
    const record = await this.find(device.id, head, deploymentId);
    const active = record.id === head.activeDeploymentId;
    const [stored, presence] = await Promise.all([
      this.reports.latestReport(device.id, DEPLOYMENT_STATUS_REPORT, record.id),
      this.presence.presenceOf([device.id]).then((answer) => presenceIn(answer, device.id)),
    ]);
    const report = stored ? (stored.data as unknown as DeploymentStatusReport) : null;
    const storedTimes = stored && { receivedAt: stored.createdAt, reportedAt: report!.reported_at };
    const latest = newest(storedTimes, this.freshness.lastHeard(device.id, record.id));
    const now = this.clock.now();
    const stale = isStale({
      online: presence.online,
      active,
      receivedAt: latest?.receivedAt ?? null,
      connectedAt: presence.uptimeSeconds === null ? null : new Date(now.getTime() - presence.uptimeSeconds * 1000),
      activatedAt: record.activatedAt,
      now,
    });
    const rolledBackFrom = active && head.lastRollback ? { rolled_back_from: head.lastRollback } : {};
    const reportedAt = report ? latest!.reportedAt : null;
    return { ...(report ?? pending(record)), reported_at: reportedAt, online: presence.online, stale, ...rolledBackFrom };
  }

  /** The named deployment; else the active one; else, after a rollback to none, the one rolled back. */
  private async find(deviceId: string, head: DeploymentHeadRecord, deploymentId?: string): Promise<DeploymentRecord> {
    const id = deploymentId ?? head.activeDeploymentId ?? head.lastRollback?.deployment_id ?? null;
    if (id === null) throw new NoActiveDeploymentError();
    const record = await this.deployments.find(deviceId, id);
    if (!record) throw deploymentId === undefined ? new NoActiveDeploymentError() : deploymentNotFound(id);
    return record;
  }
}

function pending(record: DeploymentRecord): Omit<DeploymentStatus, 'online' | 'stale'> {
  return {
    deployment_id: record.id,
    status: 'pending',
    jobs: record.jobs.map((job) => ({ id: job.id, status: job.enabled ? 'pending' : 'disabled', health: 'unknown' })),
    reported_at: null,
  };
}

/**
 * The later of the stored report and the last one heard (a repeat the channel did not store),
 * by the device's own clock: both are its reports, and this process may have heard the stored one
 * or not (it was stored before a restart, or by another replica).
 */
function newest(stored: HeardReport | null, heard: HeardReport | undefined): HeardReport | null {
  if (!heard) return stored;
  return stored && Date.parse(stored.reportedAt) > Date.parse(heard.reportedAt) ? stored : heard;
}
