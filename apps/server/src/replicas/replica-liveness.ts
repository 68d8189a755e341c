import { Logger } from '@nestjs/common';
import type { KvEntry, NatsConnection } from 'nats';
import { KvBucket } from './kv-bucket';
import { watchBucket } from './kv-watch';

export interface ReplicaLivenessOptions {
  bucket: string;
  replicaId: string;
  /** What the other replicas dial to reach this one (PEER_ADDRESS:PEER_PORT). */
  peerAddress: string;
  heartbeatMs: number;
  /** A replica not heard from for this long is gone (and so are the tunnels it held). */
  ttlMs: number;
}

interface Heartbeat {
  peerAddress: string;
}

interface Heard {
  peerAddress: string;
  /** Date.now() of the beat: its arrival here, or, for beats older than this process's watch, their time at the server. */
  at: number;
}

/**
 * Which replicas are alive: each puts a heartbeat into a KV bucket whose entries expire after the
 * TTL, and watches the others'. Debian's nats-server 2.9.10 deletes expired keys without telling
 * watchers, so liveness is decided when asked: heard from within the TTL. A replica that stops
 * cleanly deletes its own entry, which watchers do hear at once.
 */
export class ReplicaLiveness {
  private readonly heard = new Map<string, Heard>();
  private timer: NodeJS.Timeout | null = null;
  private stopWatch: (() => void) | null = null;
  /** Date.now() when this replica lost NATS (null: connected): beats cannot reach it then, so their age is judged as of that moment. */
  private offlineSince: number | null = null;
  private readonly logger = new Logger('ReplicaLiveness');

  private constructor(
    private readonly bucket: KvBucket,
    private readonly options: ReplicaLivenessOptions,
  ) {}

  static async start(nc: NatsConnection, options: ReplicaLivenessOptions): Promise<ReplicaLiveness> {
    const bucket = await KvBucket.open(nc, options.bucket, { history: 1, ttl: options.ttlMs });
    const liveness = new ReplicaLiveness(bucket, options);
    await liveness.beat();
    await liveness.watch();
    // NATS back without its store: beat into the new bucket at once and watch it from its start
    // (the replicas heard before stay heard until their TTL: they beat into the new bucket too).
    bucket.followReconnects(async (recreated) => {
      if (!recreated) return;
      liveness.stopWatch?.();
      await liveness.beat();
      await liveness.watch();
    });
    liveness.timer = setInterval(() => void liveness.beat().catch((err: Error) => liveness.logger.warn(`heartbeat failed: ${err.message}`)), options.heartbeatMs);
    liveness.timer.unref();
    void liveness.followConnection(nc);
    return liveness;
  }

  get replicaId(): string {
    return this.options.replicaId;
  }

  /** How long a replica not heard from still counts as alive. */
  get ttlMs(): number {
    return this.options.ttlMs;
  }

  /** This replica, and any other heard from within the TTL. */
  isAlive(replicaId: string): boolean {
    if (replicaId === this.options.replicaId) return this.timer !== null;
    const heard = this.heard.get(replicaId);
    return heard !== undefined && (this.offlineSince ?? Date.now()) - heard.at < this.options.ttlMs;
  }

  /** When a replica was last heard from (null: never, or it stopped cleanly). */
  lastHeard(replicaId: string): Date | null {
    const heard = this.heard.get(replicaId);
    return heard ? new Date(heard.at) : null;
  }

  /** Where to dial a live replica's peer listener; null when it is not alive. */
  peerAddressOf(replicaId: string): string | null {
    if (replicaId === this.options.replicaId) return this.options.peerAddress;
    return this.isAlive(replicaId) ? this.heard.get(replicaId)!.peerAddress : null;
  }

  /** Stops beating and deletes this replica's entry, so the others count its tunnels lost now. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.bucket.close();
    this.stopWatch?.();
    await this.bucket.kv.delete(this.options.replicaId).catch((err: Error) => this.logger.warn(`could not withdraw the heartbeat: ${err.message}`));
  }

  private async followConnection(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') this.offlineSince ??= Date.now();
      else if (status.type === 'reconnect' && this.offlineSince !== null) {
        // Nobody could be heard meanwhile: the outage does not count against anyone's TTL.
        const outage = Date.now() - this.offlineSince;
        for (const heard of this.heard.values()) heard.at += outage;
        this.offlineSince = null;
      }
    }
  }

  private async beat(): Promise<void> {
    const heartbeat: Heartbeat = { peerAddress: this.options.peerAddress };
    await this.bucket.kv.put(this.options.replicaId, JSON.stringify(heartbeat));
  }

  private async watch(): Promise<void> {
    this.stopWatch = await watchBucket(this.bucket.kv, (entry, live) => this.apply(entry, live), (err) => this.logger.error(`replica heartbeat watch ended: ${err.message}`));
  }

  private apply(entry: KvEntry, live: boolean): void {
    if (entry.operation !== 'PUT') {
      this.heard.delete(entry.key);
      return;
    }
    const { peerAddress } = entry.json<Heartbeat>();
    this.heard.set(entry.key, { peerAddress, at: live ? Date.now() : Math.min(Date.now(), entry.created.getTime()) });
  }
}
