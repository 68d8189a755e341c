import type { KV, NatsConnection } from 'nats';
import { TICKET_TTL_MS, TicketStore } from '../common/ticket-store';
import { KvBucket } from './kv-bucket';

const WRONG_LAST_SEQUENCE = 10071;
/** What a spent ticket's entry holds until the bucket's age limit drops it. */
const SPENT = '"spent"';

/**
 * Terminal tickets shared by the replicas: a ticket issued by one replica opens the WebSocket on
 * any other (a load balancer picks freely). A JetStream KV bucket whose entries age out after
 * TICKET_TTL_MS; taking one is a compare-and-set on its revision (the entry is overwritten with a
 * spent marker, which ages out too, rather than deleted: delete markers would never expire), so of
 * two replicas taking one ticket at once exactly one gets it.
 */
export class NatsTicketStore extends TicketStore {
  private constructor(private readonly kv: KV) {
    super();
  }

  static async open(nc: NatsConnection, namespace = 'svc'): Promise<NatsTicketStore> {
    const bucket = await KvBucket.open(nc, `${namespace}_tickets`, { history: 1, ttl: TICKET_TTL_MS });
    // NATS back without its store: the bucket is created again (the tickets in it, a minute's worth at most, are gone).
    bucket.followReconnects(async () => undefined);
    return new NatsTicketStore(bucket.kv);
  }

  async put(hash: string, value: string): Promise<void> {
    await this.kv.create(hash, value);
  }

  async take(hash: string): Promise<string | null> {
    const entry = await this.kv.get(hash);
    if (!entry || entry.operation !== 'PUT') return null;
    const value = entry.string();
    if (value === SPENT) return null;
    try {
      await this.kv.update(hash, SPENT, entry.revision);
      return value;
    } catch (err) {
      if ((err as { api_error?: { err_code?: number } }).api_error?.err_code === WRONG_LAST_SEQUENCE) return null;
      throw err;
    }
  }
}
