import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  capabilityOf,
  ConflictError,
  DEPLOY_LIMITS,
  DeployJobsResult,
  Deployment,
  DeploymentSummary,
  deployRequestProblems,
  formatDeployPath,
  Job,
  NoActiveDeploymentError,
  redactDeployment,
  StatusResult,
} from '@svc/common';
import type { AuditAction } from '../audit/audit-actions';
import { AuditService } from '../audit/audit.service';
import type { UserPrincipal } from '../auth/principal';
import { Handles, OperationCall } from '../authorization/catalog-controller';
import { AccessPolicy } from '../authorization/access-policy.service';
import { Clock } from '../common/clock';
import { runBatch } from '../devices/batch';
import type { DeploymentHeadRecord, DeploymentRecord } from '../storage/records';
import { DeploymentsRepository } from './deployments.repository';
import { Storage } from '../storage/storage.port';
import { DeploymentChanges } from './deployment-changes';
import { changeDeployments, nextRevision, toDocument, toSummary } from './deployment-state';
import { deploymentNotFound, deviceResolver } from './deployment-refs';
import { parseDeployRequest } from './deploy-request';

/** More deployments than this on one device is a 409: remove old ones first. */
export const MAX_DEPLOYMENTS_PER_DEVICE = 100;
/**
 * A deployment's jobs and policy as JSON: below the longest desired-state line a runtime reads
 * (DEPLOYMENT_CHANNEL_LIMITS) and well below MongoDB's 16 MiB document.
 */
export const MAX_DEPLOYMENT_BYTES = 12 * 1024 * 1024;
const AUDIT_DETAILS_CHARS = 500;

/**
 * The deployment operations (docs/deployments.md): reading needs `device:view`, every change
 * `device:deploy`. Each change is one storage transaction with its audit entry; one that moves the
 * device's head (activation, the active deployment's jobs) bumps its revision and tells the
 * deployment channel.
 */
@Injectable()
export class DeploymentsService {
  constructor(
    private readonly policy: AccessPolicy,
    private readonly deployments: DeploymentsRepository,
    private readonly storage: Storage,
    private readonly audit: AuditService,
    private readonly changes: DeploymentChanges,
    private readonly clock: Clock,
  ) {}

  /** device_deployment_list, oldest first, as summaries: the whole document is device_deployment_show's. */
  @Handles('device_deployment_list')
  list({ principal, input: target }: OperationCall<'device_deployment_list'>) {
    return runBatch(target, {
      resolve: deviceResolver(this.policy, principal, capabilityOf('device_deployment_list')),
      run: async (device): Promise<{ deployments: DeploymentSummary[] }> => {
        const [records, head] = await Promise.all([this.deployments.list(device.id), this.deployments.head(device.id)]);
        return { deployments: records.map((record) => toSummary(record, head.activeDeploymentId)) };
      },
    });
  }

  /** A caller without `device:deploy` reads it with env values and inline file contents redacted. */
  @Handles('device_deployment_show')
  async show({ authorized, input }: OperationCall<'device_deployment_show'>): Promise<Deployment> {
    const [access, deploymentId] = [authorized.device!, input.deployment_id];
    const head = await this.deployments.head(access.device.id);
    const deployment = toDocument(await this.target(access.device.id, head, deploymentId), head.activeDeploymentId);
    return this.policy.readsDeploymentSecrets(access) ? deployment : redactDeployment(deployment);
  }

  @Handles('device_deployment_active')
  async active({ authorized }: OperationCall<'device_deployment_active'>): Promise<{ active_deployment_id: string }> {
    const { activeDeploymentId } = await this.deployments.head(authorized.device!.device.id);
    if (activeDeploymentId === null) throw new NoActiveDeploymentError();
    return { active_deployment_id: activeDeploymentId };
  }

  @Handles('device_deployment_new', { status: 201 })
  async create({ principal, authorized, input }: OperationCall<'device_deployment_new'>): Promise<Deployment> {
    const [deviceId, active] = [authorized.device!.device.id, input.active === true];
    const record = await changeDeployments(this.storage, async () => {
      const created = await this.insertNew(deviceId, { jobs: [], name: null, rollback: null });
      if (active) await this.activateIn(deviceId, created.id);
      await this.record(principal, deviceId, 'device.deployment_created', `created deployment ${created.id}${active ? ' (active)' : ''}`);
      return created;
    });
    if (active) this.changes.changed(deviceId);
    return toDocument(record, active ? record.id : null);
  }

  /** A copy of the source's jobs, rollback policy and name under a new id. */
  @Handles('device_deployment_clone', { status: 201 })
  async clone({ principal, authorized, input }: OperationCall<'device_deployment_clone'>): Promise<Deployment> {
    const [deviceId, sourceId, active] = [authorized.device!.device.id, input.deployment_id, input.active === true];
    const record = await changeDeployments(this.storage, async () => {
      const source = await this.deployments.find(deviceId, sourceId);
      if (!source) throw deploymentNotFound(sourceId);
      const copy = await this.insertNew(deviceId, { jobs: source.jobs, name: source.name, rollback: source.rollback });
      if (active) await this.activateIn(deviceId, copy.id);
      await this.record(principal, deviceId, 'device.deployment_cloned', `cloned deployment ${sourceId} as ${copy.id} (${source.jobs.length} jobs)${active ? ' (active)' : ''}`);
      return copy;
    });
    if (active) this.changes.changed(deviceId);
    return toDocument(record, active ? record.id : null);
  }

  /** The active deployment is not removed: activate another one first (docs/deployments.md). */
  @Handles('device_deployment_rm')
  async remove({ principal, authorized, input }: OperationCall<'device_deployment_rm'>): Promise<StatusResult<'removed'>> {
    const [deviceId, deploymentId] = [authorized.device!.device.id, input.deployment_id];
    await changeDeployments(this.storage, async () => {
      const head = await this.deployments.head(deviceId);
      if (head.activeDeploymentId === deploymentId) {
        throw new ConflictError(`Deployment ${deploymentId} is active; activate another deployment first (an empty one stops every job)`);
      }
      if (!(await this.deployments.delete(deviceId, deploymentId))) throw deploymentNotFound(deploymentId);
      await this.record(principal, deviceId, 'device.deployment_removed', `removed deployment ${deploymentId}`);
    });
    return { status: 'removed' };
  }

  /** One write of the head: the old deployment stops being active as the new one becomes it. Activating the active one changes nothing. */
  @Handles('device_deployment_activate')
  async activate({ principal, authorized, input }: OperationCall<'device_deployment_activate'>): Promise<StatusResult<'activated'>> {
    const [deviceId, deploymentId] = [authorized.device!.device.id, input.deployment_id];
    const moved = await changeDeployments(this.storage, async () => {
      const head = await this.deployments.head(deviceId);
      if (head.activeDeploymentId === deploymentId) {
        if (!(await this.deployments.find(deviceId, deploymentId))) throw deploymentNotFound(deploymentId);
        return false;
      }
      await this.activateIn(deviceId, deploymentId, head);
      await this.record(principal, deviceId, 'device.deployment_activated', `activated deployment ${deploymentId} (previously ${head.activeDeploymentId ?? 'none'})`);
      return true;
    });
    if (moved) this.changes.changed(deviceId);
    return { status: 'activated' };
  }

  /**
   * POST /devices/:device/deployments/jobs, what device_deploy sends. Without `deployment_id` the
   * jobs go into the active deployment; a device with none gets a new deployment, made active.
   */
  /** device_deploy's `jobs` route, once OperationGuard authorized it on the device. */
  async deploy(principal: UserPrincipal, deviceId: string, body: unknown): Promise<DeployJobsResult> {
    const request = parseDeployRequest(body);
    const { deploymentId, active } = await changeDeployments(this.storage, async () => {
      const head = await this.deployments.head(deviceId);
      const created = request.deployment_id === undefined && head.activeDeploymentId === null;
      const record = created ? await this.insertNew(deviceId, { jobs: [], name: null, rollback: null }) : await this.target(deviceId, head, request.deployment_id);
      const jobs = request.mode === 'replace' ? request.jobs : mergeJobs(record.jobs, request.jobs);
      const rollback = request.rollback ?? (request.mode === 'replace' ? null : record.rollback);
      checkDeploymentSize(jobs, rollback);
      await this.deployments.update(deviceId, record.id, { jobs, rollback, name: request.name ?? record.name, updatedAt: this.clock.now() });
      const isActive = created || head.activeDeploymentId === record.id;
      if (created) await this.activateIn(deviceId, record.id, head);
      else if (isActive) await this.deployments.moveHead(head, { activeDeploymentId: record.id, revision: nextRevision(head, this.clock), lastRollback: null });
      const what = request.jobs.length > 0 ? `job(s) ${request.jobs.map((job) => job.id).join(', ')}` : 'no jobs';
      const how = request.mode === 'replace' ? ', replacing its jobs' : '';
      await this.record(principal, deviceId, 'device.deployment_jobs_deployed', `deployed ${what} into deployment ${record.id}${how}${created ? ' (created and activated)' : ''}`);
      return { deploymentId: record.id, active: isActive };
    });
    if (active) this.changes.changed(deviceId);
    return { status: 'deployed', deployment_id: deploymentId };
  }

  @Handles('device_undeploy')
  async undeploy({ principal, authorized, input }: OperationCall<'device_undeploy'>): Promise<StatusResult<'undeployed'>> {
    const [deviceId, jobId, deploymentId] = [authorized.device!.device.id, input.job_id, input.deployment_id];
    const active = await changeDeployments(this.storage, async () => {
      const head = await this.deployments.head(deviceId);
      const record = await this.target(deviceId, head, deploymentId);
      const jobs = record.jobs.filter((job) => job.id !== jobId);
      if (jobs.length === record.jobs.length) throw deploymentNotFound(record.id, jobId);
      await this.deployments.update(deviceId, record.id, { jobs, updatedAt: this.clock.now() });
      const isActive = head.activeDeploymentId === record.id;
      if (isActive) await this.deployments.moveHead(head, { activeDeploymentId: record.id, revision: nextRevision(head, this.clock), lastRollback: null });
      await this.record(principal, deviceId, 'device.deployment_job_undeployed', `undeployed job ${jobId} from deployment ${record.id}`);
      return isActive;
    });
    if (active) this.changes.changed(deviceId);
    return { status: 'undeployed' };
  }

  /** The named deployment, or the active one when none is named. */
  private async target(deviceId: string, head: DeploymentHeadRecord, deploymentId: string | undefined): Promise<DeploymentRecord> {
    const id = deploymentId ?? head.activeDeploymentId;
    if (id === null) throw new NoActiveDeploymentError();
    const record = await this.deployments.find(deviceId, id);
    if (record) return record;
    throw deploymentId === undefined ? new NoActiveDeploymentError() : deploymentNotFound(id);
  }

  private async insertNew(deviceId: string, content: Pick<DeploymentRecord, 'jobs' | 'name' | 'rollback'>): Promise<DeploymentRecord> {
    if ((await this.deployments.count(deviceId)) >= MAX_DEPLOYMENTS_PER_DEVICE) {
      throw new ConflictError(`A device holds at most ${MAX_DEPLOYMENTS_PER_DEVICE} deployments; remove some first`);
    }
    const now = this.clock.now();
    const record: DeploymentRecord = { id: randomUUID(), deviceId, ...content, createdAt: now, updatedAt: now, activatedAt: null };
    await this.deployments.insert(record);
    return record;
  }

  /** Makes `deploymentId` the active deployment: its activation time and the head, one write each. */
  private async activateIn(deviceId: string, deploymentId: string, read?: DeploymentHeadRecord): Promise<void> {
    const head = read ?? (await this.deployments.head(deviceId));
    if (!(await this.deployments.update(deviceId, deploymentId, { activatedAt: this.clock.now() }))) throw deploymentNotFound(deploymentId);
    await this.deployments.moveHead(head, { activeDeploymentId: deploymentId, revision: nextRevision(head, this.clock), lastRollback: null });
  }

  private record(principal: UserPrincipal, deviceId: string, action: AuditAction, details: string): Promise<void> {
    return this.audit.record(principal, action, { deviceId, details: details.slice(0, AUDIT_DETAILS_CHARS) });
  }
}

/** `merge`: each job replaces the one with its id, in place, or is appended. */
export function mergeJobs(current: Job[], incoming: Job[]): Job[] {
  const byId = new Map(incoming.map((job) => [job.id, job]));
  const merged = current.map((job) => byId.get(job.id) ?? job);
  const known = new Set(current.map((job) => job.id));
  return [...merged, ...incoming.filter((job) => !known.has(job.id))];
}

/** The deployment as it would be stored: what a single request may carry, it may hold in total. */
function checkDeploymentSize(jobs: Job[], rollback: DeploymentRecord['rollback']): void {
  if (jobs.length > DEPLOY_LIMITS.maxJobs) throw new ConflictError(`The deployment would hold ${jobs.length} jobs; at most ${DEPLOY_LIMITS.maxJobs} are allowed`);
  const [problem] = deployRequestProblems({ mode: 'replace', jobs });
  if (problem) throw new ConflictError(`The deployment would exceed its limits: ${formatDeployPath(problem.path)}: ${problem.message}`);
  const bytes = Buffer.byteLength(JSON.stringify({ jobs, rollback }));
  if (bytes > MAX_DEPLOYMENT_BYTES) throw new ConflictError(`The deployment would take ${bytes} bytes; at most ${MAX_DEPLOYMENT_BYTES} are allowed`);
}
