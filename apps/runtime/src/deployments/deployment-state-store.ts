import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { AtomicFileWriter, DeploymentDocument, JobStatus } from '@svc/common';

/** A deployment version: the same id with another `updated_at` is a changed deployment. */
export interface DeploymentVersion {
  deployment_id: string;
  updated_at: string;
}

/** A deployment the runtime rolled back: not tried again while the server keeps asking for this same version. */
export interface RolledBackMarker extends DeploymentVersion {
  reason: string;
  to_deployment_id: string | null;
  /** Its jobs as they were when it was rolled back: the report says what went wrong. */
  jobs: JobStatus[];
}

export interface StoredState {
  /** The revision of the last desired state applied; null before the first. */
  revision: number | null;
  /** What the server asked for last. */
  desired: DeploymentDocument | null;
  /** What runs: the desired deployment, or after a rollback the one before it. */
  running: DeploymentDocument | null;
  /** What ran before `running` became active: the rollback target. */
  previous: DeploymentDocument | null;
  rolled_back: RolledBackMarker | null;
  /** `running` is still within its stabilization period (a restarted runtime starts the period again). */
  gating: DeploymentVersion | null;
  /** Job id → hash of the `job` definition that last ran to completion. */
  completed_jobs: Record<string, string>;
}

/** `desired` on disk when it is the running deployment itself. */
const SAME_AS_RUNNING = 'running';

export function emptyState(): StoredState {
  return { revision: null, desired: null, running: null, previous: null, rolled_back: null, gating: null, completed_jobs: {} };
}

export function versionOf(deployment: DeploymentDocument): DeploymentVersion {
  return { deployment_id: deployment.id, updated_at: deployment.updated_at };
}

export function sameVersion(a: DeploymentVersion | null | undefined, b: DeploymentDocument | null | undefined): boolean {
  return !!a && !!b && a.deployment_id === b.id && a.updated_at === b.updated_at;
}

/**
 * `<data>/deployments/state.json`: the desired state and what the engine made of it, so that a
 * device that restarts while the server is unreachable runs the same jobs again. Written
 * atomically (temp file, fsync, rename), 0600; saves are queued, the newest state always last.
 */
export class DeploymentStateStore {
  private writes: Promise<void> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly onError: (error: Error) => void,
  ) {}

  /** The stored state; a missing file is an empty state, and so is an unreadable one (reported). */
  load(): StoredState {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.onError(error as Error);
      return emptyState();
    }
    try {
      const parsed = JSON.parse(text) as Partial<Omit<StoredState, 'desired'>> & { desired?: StoredState['desired'] | typeof SAME_AS_RUNNING };
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
      const state = { ...emptyState(), ...parsed, completed_jobs: { ...(parsed.completed_jobs ?? {}) } };
      return { ...state, desired: parsed.desired === SAME_AS_RUNNING ? state.running : (parsed.desired ?? null) };
    } catch (error) {
      this.onError(new Error(`${this.path} is unusable (${(error as Error).message}); starting without a stored deployment`));
      return emptyState();
    }
  }

  /** Queues a write of `state` as it is now; resolves once it is on disk. */
  save(state: StoredState): Promise<void> {
    // A deployment may carry megabytes of inlined files: the desired one is not written twice.
    const stored = { ...state, desired: state.desired !== null && state.desired === state.running ? SAME_AS_RUNNING : state.desired };
    const bytes = Buffer.from(`${JSON.stringify(stored)}\n`, 'utf8');
    this.writes = this.writes.then(() => this.write(bytes)).catch((error: Error) => this.onError(error));
    return this.writes;
  }

  private async write(bytes: Buffer): Promise<void> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const writer = await AtomicFileWriter.open(this.path, { mode: 0o600 });
    await writer.write(Readable.from([bytes]), { size: bytes.length, expectedSha256: () => sha256 });
  }
}
