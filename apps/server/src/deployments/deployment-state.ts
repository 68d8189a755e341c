import type { DeploymentDocument, DeploymentSummary, DesiredState } from '@svc/common';
import type { Clock } from '../common/clock';
import type { DeploymentHeadRecord, DeploymentRecord } from '../storage/records';
import { DeploymentsRepository, HeadMovedError } from './deployments.repository';
import type { Storage } from '../storage/storage.port';

/** A head change that lost to another one is read and decided again, this many times at most. */
const HEAD_ATTEMPTS = 8;

/** The stored record as answers show it: `active` is derived from the device's head. */
export function toDocument(record: DeploymentRecord, activeDeploymentId: string | null): DeploymentDocument {
  return {
    id: record.id,
    active: record.id === activeDeploymentId,
    jobs: record.jobs,
    ...(record.name === null ? {} : { name: record.name }),
    ...(record.rollback === null ? {} : { rollback: record.rollback }),
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
  };
}

/** A deployment as device_deployment_list shows it: each job as the spec's Job, no commands, env or files. */
export function toSummary(record: DeploymentRecord, activeDeploymentId: string | null): DeploymentSummary {
  const { jobs, ...rest } = toDocument(record, activeDeploymentId);
  return { ...rest, jobs: jobs.map(({ id, type, enabled }) => ({ id, type, enabled })) };
}

/**
 * The next revision of a head: the server's time in milliseconds, or one more than the last when
 * that is larger. Time-based, so a device removed and registered again (a fresh head) still gets
 * revisions above the ones its runtime stored before, and a replica with a slow clock still counts up.
 */
export function nextRevision(head: DeploymentHeadRecord, clock: Clock): number {
  return Math.max(head.revision + 1, clock.now().getTime());
}

/** What the device should run now: its active deployment at the head's revision, or none. */
export async function desiredStateOf(repository: DeploymentsRepository, deviceId: string): Promise<DesiredState> {
  const head = await repository.head(deviceId);
  const active = head.activeDeploymentId === null ? null : await repository.find(deviceId, head.activeDeploymentId);
  return { revision: head.revision, deployment: active && toDocument(active, active.id) };
}

/**
 * Runs `work` in one storage transaction; when it lost a race for the head (another change
 * committed first), runs it again from its reads, checks included.
 */
export async function changeDeployments<R>(storage: Storage, work: () => Promise<R>): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await storage.transaction(work);
    } catch (error) {
      if (!(error instanceof HeadMovedError) || attempt >= HEAD_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** attempt));
    }
  }
}
