import { Logger } from '@nestjs/common';
import type { KV, KvEntry, NatsConnection } from 'nats';
import { TunnelDirectory, type TunnelLink, type TunnelLocation } from '../relay/tunnel-directory';
import { KvBucket } from './kv-bucket';
import { watchBucket } from './kv-watch';
import { ReplicaLiveness } from './replica-liveness';

export interface NatsTunnelDirectoryOptions {
  replicaId: string;
  /** What the other replicas dial to reach this one's peer listener. */
  peerAddress: string;
  /** Prefix of the KV buckets; replicas that share a fleet share it. */
  namespace?: string;
  heartbeatMs?: number;
  livenessTtlMs?: number;
}

/** How often a replica says it is alive, and how long the others wait before counting it (and its tunnels) gone. */
export const REPLICA_HEARTBEAT_MS = 2_000;
export const REPLICA_LIVENESS_TTL_MS = 6_000;
/** Attempts of the compare-and-set in `lost` when other writes keep landing between read and write. */
const LOST_ATTEMPTS = 5;
const WRONG_LAST_SEQUENCE = 10071;
/** On close, how long writes still in flight (the last tunnels' "lost") may take to land. */
const CLOSE_FLUSH_MS = 2_000;

type StoredEntry =
  | { deviceId: string; state: 'connected'; holder: string; since: string; carrier: TunnelLink['carrier']; carrierNote?: string }
  | { deviceId: string; state: 'lost'; since: string };

/** A write of this replica's that NATS has not taken yet (it was down): what this replica knows, and will write once NATS is back. */
type Intent = { kind: 'connected'; entry: StoredEntry & { state: 'connected' } } | { kind: 'lost'; holder: string; at: Date } | { kind: 'forget' };

interface Cached {
  revision: number;
  /** Null: deleted at this revision (kept, so an older write arriving late cannot bring it back). */
  entry: StoredEntry | null;
}

/**
 * The tunnel directory on NATS JetStream KV: one entry per device (holder, since, carrier). Every
 * replica keeps a copy fed by a watch of the bucket, so `locate` never waits on the bus; a write
 * is applied to the writer's copy at once. "Lost" is a compare-and-set on the entry's revision, so
 * a replica that lost a device cannot overwrite the newer holder's entry. A holder that stopped
 * heart-beating (ReplicaLiveness) reads lost, since it was last heard from.
 */
export class NatsTunnelDirectory extends TunnelDirectory {
  private readonly cache = new Map<string, Cached>();
  private stopWatch: (() => void) | null = null;
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly unwritten = new Map<string, Intent>();
  /** The tunnels this replica holds, as it last wrote them: written again when NATS comes back without them. */
  private readonly held = new Map<string, StoredEntry & { state: 'connected' }>();
  /**
   * What the bucket NATS lost said, read for one liveness TTL after it was found lost (for a device
   * the new bucket has no entry for yet): by then every live replica has written its tunnels again,
   * so a device held elsewhere does not read offline meanwhile.
   */
  private carried = new Map<string, StoredEntry>();
  private carriedUntil = 0;
  private readonly takeoverListeners: ((deviceId: string, holder: string, since: Date) => void)[] = [];
  private readonly logger = new Logger('NatsTunnelDirectory');

  private constructor(
    private readonly bucket: KvBucket,
    readonly liveness: ReplicaLiveness,
  ) {
    super();
  }

  private get kv(): KV {
    return this.bucket.kv;
  }

  static async open(nc: NatsConnection, options: NatsTunnelDirectoryOptions): Promise<NatsTunnelDirectory> {
    const namespace = options.namespace ?? 'svc';
    const bucket = await KvBucket.open(nc, `${namespace}_tunnels`, { history: 1 });
    const liveness = await ReplicaLiveness.start(nc, {
      bucket: `${namespace}_replicas`,
      replicaId: options.replicaId,
      peerAddress: options.peerAddress,
      heartbeatMs: options.heartbeatMs ?? REPLICA_HEARTBEAT_MS,
      ttlMs: options.livenessTtlMs ?? REPLICA_LIVENESS_TTL_MS,
    });
    const directory = new NatsTunnelDirectory(bucket, liveness);
    await directory.watch();
    await directory.releaseStale(options.replicaId);
    bucket.followReconnects((recreated) => directory.back(recreated));
    return directory;
  }

  connected(deviceId: string, holder: string, connectedAt: Date, link: TunnelLink): Promise<void> {
    const entry = { deviceId, state: 'connected' as const, holder, since: connectedAt.toISOString(), carrier: link.carrier, ...(link.carrierNote === undefined ? {} : { carrierNote: link.carrierNote }) };
    if (holder === this.liveness.replicaId) this.held.set(deviceId, entry);
    else this.held.delete(deviceId);
    return this.write(deviceId, { kind: 'connected', entry });
  }

  lost(deviceId: string, holder: string, at: Date): Promise<void> {
    if (holder === this.liveness.replicaId) this.held.delete(deviceId);
    return this.write(deviceId, { kind: 'lost', holder, at });
  }

  forget(deviceId: string): Promise<void> {
    this.held.delete(deviceId);
    return this.write(deviceId, { kind: 'forget' });
  }

  private perform(deviceId: string, intent: Intent): Promise<void> {
    if (intent.kind === 'connected') return this.put(intent.entry);
    if (intent.kind === 'lost') return this.markLost(deviceId, intent.holder, intent.at);
    return this.remove(deviceId);
  }

  private async put(stored: StoredEntry & { state: 'connected' }): Promise<void> {
    this.remember(stored.deviceId, await this.kv.put(keyOf(stored.deviceId), JSON.stringify(stored)), stored);
  }

  private async markLost(deviceId: string, holder: string, at: Date): Promise<void> {
    const key = keyOf(deviceId);
    for (let attempt = 1; attempt <= LOST_ATTEMPTS; attempt++) {
      const current = await this.kv.get(key);
      if (!current || current.operation !== 'PUT') return;
      const entry = current.json<StoredEntry>();
      if (entry.state !== 'connected' || entry.holder !== holder) return;
      const stored: StoredEntry = { deviceId, state: 'lost', since: at.toISOString() };
      try {
        this.remember(deviceId, await this.kv.update(key, JSON.stringify(stored), current.revision), stored);
        return;
      } catch (err) {
        if ((err as { api_error?: { err_code?: number } }).api_error?.err_code !== WRONG_LAST_SEQUENCE) throw err;
      }
    }
    this.logger.warn(`device ${deviceId}: its entry kept changing; left as it is`);
  }

  private async remove(deviceId: string): Promise<void> {
    const key = keyOf(deviceId);
    await this.kv.delete(key);
    // The delete answers no revision: read the marker it left, so this replica's copy forgets at once.
    const marker = await this.kv.get(key);
    if (marker && marker.operation !== 'PUT') this.remember(deviceId, marker.revision, null);
  }

  async locate(deviceIds: readonly string[]): Promise<Map<string, TunnelLocation>> {
    const found = new Map<string, TunnelLocation>();
    for (const id of deviceIds) {
      const intent = this.unwritten.get(id);
      if (intent) {
        if (intent.kind === 'connected') found.set(id, this.locationOf(intent.entry));
        else if (intent.kind === 'lost') found.set(id, { state: 'lost', since: intent.at });
        continue;
      }
      const entry = this.entryOf(id);
      if (entry) found.set(id, this.locationOf(entry));
    }
    return found;
  }

  override onTakenOver(listener: (deviceId: string, holder: string, since: Date) => void): void {
    this.takeoverListeners.push(listener);
  }

  /** Where to reach a device another live replica holds (its peer address), from this replica's copy; null otherwise. */
  peerHolding(deviceId: string): { holder: string; peerAddress: string; carrier: TunnelLink['carrier'] } | null {
    const entry = this.entryOf(deviceId);
    if (entry?.state !== 'connected' || entry.holder === this.liveness.replicaId) return null;
    const peerAddress = this.liveness.peerAddressOf(entry.holder);
    return peerAddress === null ? null : { holder: entry.holder, peerAddress, carrier: entry.carrier };
  }

  /**
   * Lets the writes in flight land (the last tunnels' "lost"), then stops watching and withdraws
   * this replica's heartbeat; later writes are dropped (the others read its tunnels lost anyway).
   */
  async close(): Promise<void> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_FLUSH_MS)))]);
    clearTimeout(timer);
    this.bucket.close();
    this.stopWatch?.();
    await this.liveness.stop();
  }

  /**
   * Writes this replica's change; until NATS takes it (down, reconnecting), this replica's own
   * answers follow it (the intent overrides the copy) and it is written again once NATS is back.
   */
  private write(deviceId: string, intent: Intent): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.unwritten.set(deviceId, intent);
    const running = this.perform(deviceId, intent).then(() => {
      if (this.unwritten.get(deviceId) === intent) this.unwritten.delete(deviceId);
    });
    this.inFlight.add(running);
    void running.catch(() => undefined).finally(() => this.inFlight.delete(running));
    return running;
  }

  /**
   * NATS back (restarted, or the link healed). On the same store, the writes it missed land now,
   * oldest first. Without its store (the bucket is new), this replica's copy starts over from the
   * new bucket and every tunnel it holds is written again first, with its own time, so none reads
   * offline anywhere (each replica does the same for its own).
   */
  private async back(recreated: boolean): Promise<void> {
    if (recreated) await this.rebuild();
    const missed = [...this.unwritten];
    for (const [deviceId, intent] of missed) {
      try {
        await this.perform(deviceId, intent);
        if (this.unwritten.get(deviceId) === intent) this.unwritten.delete(deviceId);
      } catch (err) {
        this.logger.warn(`device ${deviceId}: its entry could not be written again yet: ${(err as Error).message}`);
      }
    }
    if (missed.length > 0) this.logger.log(`wrote ${missed.length} tunnel change(s) made while NATS was away`);
  }

  private async rebuild(): Promise<void> {
    this.stopWatch?.();
    this.carried = new Map([...this.cache].flatMap(([deviceId, { entry }]) => (entry ? [[deviceId, entry] as const] : [])));
    this.carriedUntil = Date.now() + this.liveness.ttlMs;
    this.cache.clear();
    // Written before the watch starts: until they land, this replica's own answers follow them (intents).
    const writes = [...this.held].map(([deviceId, entry]) => this.write(deviceId, { kind: 'connected', entry }).catch((err: Error) => this.logger.warn(`device ${deviceId}: its entry could not be written again yet: ${err.message}`)));
    await this.watch();
    await Promise.all(writes);
    this.logger.log(`tunnel directory rebuilt from a new bucket: ${writes.length} tunnel(s) held here written again`);
  }

  private async watch(): Promise<void> {
    this.stopWatch = await watchBucket(this.kv, (entry) => this.apply(entry), (err) => this.logger.error(`tunnel directory watch: ${err.message}`));
  }

  /**
   * Entries this replica id left "connected" in an earlier life (killed, or stopped before NATS
   * took its last writes): it holds no tunnel yet, so they are lost, not online again.
   */
  private async releaseStale(replicaId: string): Promise<void> {
    const now = new Date();
    const stale = [...this.cache].filter(([, cached]) => cached.entry?.state === 'connected' && cached.entry.holder === replicaId).map(([deviceId]) => deviceId);
    for (const deviceId of stale) await this.markLost(deviceId, replicaId, now);
    if (stale.length > 0) this.logger.log(`marked ${stale.length} tunnel(s) left from this replica's previous run lost`);
  }

  /** The new bucket's entry once it has one (null: deleted), else, for a while after NATS lost its store, the old one's. */
  private entryOf(deviceId: string): StoredEntry | null | undefined {
    const cached = this.cache.get(deviceId);
    if (cached) return cached.entry;
    if (this.carried.size === 0) return undefined;
    if (Date.now() < this.carriedUntil) return this.carried.get(deviceId);
    this.carried.clear();
    return undefined;
  }

  private locationOf(entry: StoredEntry): TunnelLocation {
    if (entry.state === 'lost') return { state: 'lost', since: new Date(entry.since) };
    const connectedAt = new Date(entry.since);
    if (!this.liveness.isAlive(entry.holder)) {
      const heard = this.liveness.lastHeard(entry.holder);
      return { state: 'lost', since: heard && heard > connectedAt ? heard : connectedAt };
    }
    return { state: 'connected', holder: entry.holder, connectedAt, carrier: entry.carrier, ...(entry.carrierNote === undefined ? {} : { carrierNote: entry.carrierNote }) };
  }

  private apply(entry: KvEntry): void {
    const deviceId = deviceIdOf(entry.key);
    const stored = entry.operation === 'PUT' ? entry.json<StoredEntry>() : null;
    if (!this.remember(deviceId, entry.revision, stored) || stored?.state !== 'connected' || stored.holder === this.liveness.replicaId) return;
    for (const listener of this.takeoverListeners) listener(deviceId, stored.holder, new Date(stored.since));
  }

  /** Keeps the newest revision (the watch may deliver a write after this replica applied a newer one); answers whether it did. */
  private remember(deviceId: string, revision: number, entry: StoredEntry | null): boolean {
    const cached = this.cache.get(deviceId);
    if (cached && cached.revision >= revision) return false;
    this.cache.set(deviceId, { revision, entry });
    return true;
  }
}

/** KV keys allow letters, digits and `-_/=.`; device ids are encoded so any id is a valid key. */
function keyOf(deviceId: string): string {
  return Buffer.from(deviceId, 'utf8').toString('base64url');
}

function deviceIdOf(key: string): string {
  return Buffer.from(key, 'base64url').toString('utf8');
}
