import { Injectable } from '@nestjs/common';
import { DeploymentStatus, DeploymentStatusReport, NoActiveDeploymentError } from '@svc/common';
import { AuditService } from '../audit/audit.service';
import type { UserPrincipal } from '../auth/principal';
import { AccessPolicy } from '../authorization/access-policy.service';
import { BatchTarget, runBatch } from '../devices/batch';
import type { DeploymentRecord } from '../storage/records';
import { DeploymentsRepository } from '../storage/repositories/deployments.repository';
import { deploymentNotFound, deviceResolver } from './deployment-refs';

/** The report kind (ReportRecord.kind) of a runtime's deployment status; its subject is the deployment id. */
export const DEPLOYMENT_STATUS_REPORT = 'deployment_status';

/**
 * device_deployment_status: the newest report the device sent on the deployment (the active one
 * unless named), kept REPORT_RETENTION_DAYS. Before its first report a deployment is `pending`.
 */
@Injectable()
export class DeploymentStatusService {
  constructor(
    private readonly policy: AccessPolicy,
    private readonly deployments: DeploymentsRepository,
    private readonly audit: AuditService,
  ) {}

  status(principal: UserPrincipal, target: BatchTarget & { deployment_id?: string }) {
    return runBatch(target, {
      resolve: deviceResolver(this.policy, principal, 'device:view'),
      run: (device) => this.statusOf(device.id, target.deployment_id),
    });
  }

  async statusOf(deviceId: string, deploymentId?: string): Promise<DeploymentStatus> {
    const id = deploymentId ?? (await this.deployments.head(deviceId)).activeDeploymentId;
    if (id === null) throw new NoActiveDeploymentError();
    const record = await this.deployments.find(deviceId, id);
    if (!record) throw deploymentId === undefined ? new NoActiveDeploymentError() : deploymentNotFound(id);
    const report = await this.audit.latestReport(deviceId, DEPLOYMENT_STATUS_REPORT, id);
    return report ? (report.data as unknown as DeploymentStatusReport) : pending(record);
  }
}

function pending(record: DeploymentRecord): DeploymentStatus {
  return {
    deployment_id: record.id,
    status: 'pending',
    jobs: record.jobs.map((job) => ({ id: job.id, status: job.enabled ? 'pending' : 'disabled', health: 'unknown' })),
    reported_at: null,
  };
}
