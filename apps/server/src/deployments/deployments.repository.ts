import { Injectable } from '@nestjs/common';
import { ConflictError } from '@svc/common';
import { Storage } from '../storage/storage.port';
import { DEPLOYMENT_HEADS, DeploymentHeadRecord, DeploymentRecord, DEPLOYMENTS } from '../storage/records';

/** What a deployment change may set; the device and the creation time never change. */
export type DeploymentChange = Partial<Pick<DeploymentRecord, 'name' | 'jobs' | 'rollback' | 'updatedAt' | 'activatedAt'>>;

/** Another change of the device's head came first: read again and decide again. */
export class HeadMovedError extends ConflictError {
  constructor() {
    super('The deployments of this device were changed by another request meanwhile; try again');
  }
}

/** Heads are read in chunks of this many ids (the channel's revision poll). */
const HEADS_CHUNK = 500;

/**
 * A device's deployments and its head (which one is active, at which revision). Every query names
 * the device: deployment ids are only meaningful within their device, so a deployment of another
 * device is "not found" even by its exact id. Callers have authorized the device already.
 */
@Injectable()
export class DeploymentsRepository {
  private readonly deployments;
  private readonly heads;

  constructor(private readonly storage: Storage) {
    this.deployments = storage.collection(DEPLOYMENTS);
    this.heads = storage.collection(DEPLOYMENT_HEADS);
  }

  /** Oldest first. */
  list(deviceId: string): Promise<DeploymentRecord[]> {
    return this.deployments.find({ deviceId }, { sort: { field: 'createdAt', direction: 'asc' } });
  }

  count(deviceId: string): Promise<number> {
    return this.deployments.count({ deviceId });
  }

  find(deviceId: string, id: string): Promise<DeploymentRecord | null> {
    return this.deployments.findOne({ id, deviceId });
  }

  insert(record: DeploymentRecord): Promise<void> {
    return this.deployments.insert(record);
  }

  /** False when the deployment is gone. */
  update(deviceId: string, id: string, change: DeploymentChange): Promise<boolean> {
    return this.deployments.updateOne({ id, deviceId }, change);
  }

  delete(deviceId: string, id: string): Promise<boolean> {
    return this.deployments.deleteOne({ id, deviceId });
  }

  /** The device's head; a device that never had an active deployment has none yet (revision 0). */
  async head(deviceId: string): Promise<DeploymentHeadRecord> {
    return (await this.heads.findOne({ id: deviceId })) ?? { id: deviceId, activeDeploymentId: null, revision: 0 };
  }

  /** Current revisions of these devices' heads (absent: none yet). */
  async revisions(deviceIds: readonly string[]): Promise<Map<string, number>> {
    const revisions = new Map<string, number>();
    for (let i = 0; i < deviceIds.length; i += HEADS_CHUNK) {
      const rows = await this.heads.findFields({ id: { in: deviceIds.slice(i, i + HEADS_CHUNK) } }, ['revision']);
      for (const row of rows) revisions.set(row.id, row.revision ?? 0);
    }
    return revisions;
  }

  /**
   * Moves the head from what `read` says to `next`, in one write: compare-and-set on the revision
   * read (or, for a device without a head yet, the insert of its first one). A ConflictError when
   * another change came first, which rolls back the caller's transaction. Every field is written
   * (`lastRollback` too), so a move cannot forget to clear it.
   */
  async moveHead(read: DeploymentHeadRecord, next: Required<Omit<DeploymentHeadRecord, 'id'>>): Promise<void> {
    if (read.revision === 0) {
      await this.heads.insert({ id: read.id, ...next }).catch((error: unknown) => {
        throw error instanceof ConflictError ? new HeadMovedError() : error;
      });
      return;
    }
    if (!(await this.heads.updateOne({ id: read.id, revision: read.revision }, next))) throw new HeadMovedError();
  }

  /** A removed device takes its deployments and head along. */
  async removeDevice(deviceId: string): Promise<void> {
    await this.storage.transaction(async () => {
      await this.deployments.deleteMany({ deviceId });
      await this.heads.deleteOne({ id: deviceId });
    });
  }
}
