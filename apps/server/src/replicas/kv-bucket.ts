import { Logger } from '@nestjs/common';
import type { KV, KvOptions, NatsConnection } from 'nats';

/** Between attempts to find or create the bucket while NATS, just back, does not answer for JetStream yet. */
const RETRY_MS = 500;

/**
 * A JetStream KV bucket that survives NATS coming back without its store (a new host, a lost
 * volume, `-sd` on a temp directory). After each reconnect it is created again when missing, and
 * `followReconnects` tells its owner whether it is the bucket it had (`recreated` false: only the
 * writes NATS missed while away are missing) or a new one (true, created here or by another
 * replica first): a watch on the old one would resume at the old stream's sequence and miss the new
 * entries, the revisions start again at 1, and the owner's entries are gone, so the owner starts
 * its watch over and writes its entries again.
 */
export class KvBucket {
  private closed = false;
  private readonly logger = new Logger('KvBucket');

  private constructor(
    readonly kv: KV,
    private created: string,
    private readonly nc: NatsConnection,
    readonly name: string,
    private readonly options: Partial<KvOptions>,
  ) {}

  /** Binds to the bucket, creating it when it does not exist. */
  static async open(nc: NatsConnection, name: string, options: Partial<KvOptions>): Promise<KvBucket> {
    const kv = await nc.jetstream().views.kv(name, options);
    return new KvBucket(kv, (await kv.status()).streamInfo.created, nc, name, options);
  }

  /** Calls `onBack` after each reconnect, once the bucket exists again; until `close()`. */
  followReconnects(onBack: (recreated: boolean) => Promise<void>): void {
    void (async () => {
      for await (const status of this.nc.status()) {
        if (status.type !== 'reconnect' || this.closed) continue;
        const recreated = await this.ensure();
        if (recreated === null || this.closed) continue;
        if (recreated) this.logger.warn(`NATS came back without the bucket ${this.name}: created again, its entries written anew`);
        await onBack(recreated).catch((err: Error) => this.logger.error(`bucket ${this.name} after the reconnect: ${err.message}`));
      }
    })();
  }

  close(): void {
    this.closed = true;
  }

  /** Whether the bucket is a new one (created again, here or elsewhere); null when closed first. */
  private async ensure(): Promise<boolean | null> {
    for (let attempt = 1; !this.closed; attempt++) {
      try {
        // Creates the bucket when NATS lost it, binds to it otherwise (the same call as at start).
        const kv = await this.nc.jetstream().views.kv(this.name, this.options);
        const created = (await kv.status()).streamInfo.created;
        const recreated = created !== this.created;
        this.created = created;
        return recreated;
      } catch (err) {
        if (attempt === 1) this.logger.warn(`bucket ${this.name} not reachable yet after the reconnect (${(err as Error).message}); trying again`);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
    return null;
  }
}
