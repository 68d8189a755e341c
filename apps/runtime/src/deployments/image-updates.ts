import { UPDATE_LABELS, wantsImageUpdates } from '@svc/common';
import type { RuntimeLogger } from '../logging/runtime-logger';
import { ASIDE_NAME, ContainerEngine, planRecreate, recreateContainer } from './container-recreate';
import { ContainerSummary, EngineApi } from './engine-api';
import { findEngineSocket } from '../handlers/docker-handler';

/** The first check comes this soon after start (or after one interval, if shorter), not a whole interval later. */
const FIRST_CHECK_MAX_MS = 60_000;

export interface ImageUpdateOptions {
  /** Engine sockets, the configured one or the usual places in order; looked up at every check. */
  sockets: readonly string[];
  /** 0: no scheduled checks (checkOnce still works). */
  intervalMs: number;
  log: RuntimeLogger;
  connect?: (socket: string) => ContainerEngine;
}

export interface ImageUpdateResult {
  /** The socket used; undefined when no engine socket exists. */
  engine?: string;
  /** Names of the labelled containers looked at. */
  checked: string[];
  updated: string[];
  /** Pull, inspect or recreate failed; these containers were left (or put back) as they were. */
  failed: string[];
}

/** How a container's image reference is pulled: by name and tag; `undefined` for a digest or an image id (nothing newer can exist). */
export function pullTarget(reference: string, imageId: string): { name: string; tag: string; localOnly: boolean } | undefined {
  if (reference.includes('@')) return undefined;
  const bare = reference.replace(/^sha256:/, '');
  if (/^[0-9a-f]{12,64}$/.test(bare) && imageId.replace(/^sha256:/, '').startsWith(bare)) return undefined;
  const slash = reference.lastIndexOf('/');
  const colon = reference.lastIndexOf(':');
  const [name, tag] = colon > slash ? [reference.slice(0, colon), reference.slice(colon + 1)] : [reference, 'latest'];
  // Podman names images built or imported on this machine `localhost/…`: no registry holds them.
  return { name, tag, localOnly: name.startsWith('localhost/') };
}

/**
 * Automatic image updates: every interval, the containers labelled `io.svc.update=true` or
 * `com.centurylinklabs.watchtower.enable=true` have their image reference pulled; one whose
 * reference now points to another image is recreated on it (container-recreate.ts). Containers
 * without the label are never touched. Engine errors are logged, never thrown.
 */
export class ImageUpdateChecker {
  private readonly log: RuntimeLogger;
  private readonly connect: (socket: string) => ContainerEngine;
  private readonly stopping = new AbortController();
  private timer?: NodeJS.Timeout;
  private current?: Promise<ImageUpdateResult>;
  private engineMissing = false;

  constructor(private readonly options: ImageUpdateOptions) {
    this.log = options.log;
    this.connect = options.connect ?? ((socket) => new EngineApi(socket));
  }

  start(): void {
    if (this.options.intervalMs <= 0) {
      this.log.info('automatic image updates off');
      return;
    }
    this.log.info('automatic image updates on', { every_ms: this.options.intervalMs, labels: UPDATE_LABELS.map((label) => `${label}=true`) });
    this.schedule(Math.min(this.options.intervalMs, FIRST_CHECK_MAX_MS));
  }

  /** No further checks; a pull in progress is abandoned, an update in progress is finished. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.stopping.abort();
    await this.current;
  }

  /** One check now (joins the one in progress, if any). */
  checkOnce(): Promise<ImageUpdateResult> {
    this.current ??= this.check().finally(() => (this.current = undefined));
    return this.current;
  }

  private schedule(delayMs: number): void {
    if (this.stopping.signal.aborted) return;
    this.timer = setTimeout(() => void this.checkOnce().finally(() => this.schedule(this.options.intervalMs)), delayMs);
    this.timer.unref();
  }

  private async check(): Promise<ImageUpdateResult> {
    const socket = findEngineSocket(this.options.sockets);
    if (socket === undefined) {
      if (!this.engineMissing) this.log.info('no container engine socket; image update checks idle until one appears', { looked_for: this.options.sockets });
      this.engineMissing = true;
      return { checked: [], updated: [], failed: [] };
    }
    if (this.engineMissing) this.log.info('container engine socket found; image update checks resume', { socket });
    this.engineMissing = false;
    const result: ImageUpdateResult = { engine: socket, checked: [], updated: [], failed: [] };
    try {
      const engine = this.connect(socket);
      const pulls = new Map<string, Promise<void>>();
      for (const summary of await this.labelled(engine)) {
        if (this.stopping.signal.aborted) break;
        const name = summary.Names?.[0]?.replace(/^\//, '') ?? summary.Id.slice(0, 12);
        result.checked.push(name);
        const outcome = await this.checkContainer(engine, summary, pulls).catch((error: Error) => {
          this.log.warn('image update check of a container failed', { container: name, error: error.message });
          return 'failed' as const;
        });
        if (outcome === 'updated') result.updated.push(name);
        if (outcome === 'failed') result.failed.push(name);
      }
    } catch (error) {
      this.log.warn('image update check failed', { socket, error: (error as Error).message });
    }
    const changed = result.updated.length > 0 || result.failed.length > 0;
    this.log[changed ? 'info' : 'debug']('image update check done', { checked: result.checked.length, updated: result.updated, failed: result.failed });
    return result;
  }

  /** Containers with either label, each once, whose label value says yes. */
  private async labelled(engine: ContainerEngine): Promise<ContainerSummary[]> {
    const found = new Map<string, ContainerSummary>();
    for (const label of UPDATE_LABELS) for (const container of await engine.listContainers(label)) found.set(container.Id, container);
    return [...found.values()].filter((container) => wantsImageUpdates(container.Labels));
  }

  private async checkContainer(engine: ContainerEngine, summary: ContainerSummary, pulls: Map<string, Promise<void>>): Promise<'current' | 'updated' | 'failed' | 'skipped'> {
    const container = await engine.inspectContainer(summary.Id);
    const name = container.Name.replace(/^\//, '');
    const reference = container.Config.Image;
    const fields = { container: name, image: reference };
    if (ASIDE_NAME.test(name)) {
      this.log.warn('left over from an interrupted image update; not updated (remove it, or rename it if it is the one to keep)', fields);
      return 'skipped';
    }
    if (container.HostConfig.AutoRemove) {
      this.log.debug('not updated: created with --rm, it would vanish when stopped', fields);
      return 'skipped';
    }
    const target = pullTarget(reference, container.Image);
    if (target === undefined) {
      this.log.debug('not updated: pinned to a digest or an image id', fields);
      return 'skipped';
    }
    if (!target.localOnly) {
      const key = `${target.name}:${target.tag}`;
      if (!pulls.has(key)) pulls.set(key, engine.pullImage(target.name, target.tag, this.stopping.signal));
      try {
        await pulls.get(key);
      } catch (error) {
        if (this.stopping.signal.aborted) return 'skipped';
        this.log.warn('image pull failed; container left as it is', { ...fields, error: (error as Error).message });
        return 'failed';
      }
    }
    const latest = await engine.inspectImage(reference);
    if (latest === undefined) {
      this.log.warn('image reference not found on the engine; container left as it is', fields);
      return 'failed';
    }
    if (latest.Id === container.Image) {
      this.log.debug('image up to date', { ...fields, image_id: latest.Id });
      return 'current';
    }
    const oldImage = await engine.inspectImage(container.Image).catch(() => undefined);
    const outcome = await recreateContainer(engine, container.Id, planRecreate(container, oldImage, reference), this.log);
    if (!outcome.updated) return 'failed';
    this.log.info('container updated to a newer image', { ...fields, from: container.Image, to: latest.Id, was_running: container.State.Running });
    return 'updated';
  }
}
