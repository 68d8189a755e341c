import { RateLimitedError } from '@svc/common';

/** A terminal ticket is good for this long, and for one use (docs/dashboard.md). */
export const TICKET_TTL_MS = 30_000;

/**
 * Where terminal tickets wait for their one use, keyed by the ticket's hash; the value is the
 * ticket's record as JSON (the terminal module's TicketRecord). `take` is atomic: of several
 * concurrent takes of one hash at most one gets the value, and it is gone afterwards. Expired
 * values may linger until swept; their reader checks the expiry itself.
 */
export abstract class TicketStore {
  abstract put(hash: string, value: string, expiresAt: number): Promise<void>;
  abstract take(hash: string): Promise<string | null>;
}

/** ReplicasModule's NATS KV store when replicas share NATS, else null: the terminal module then keeps the in-process map. */
export const SHARED_TICKET_STORE = Symbol('SHARED_TICKET_STORE');

/** Bounds the map against a caller minting tickets in a loop (each lives TICKET_TTL_MS). */
const MAX_OUTSTANDING = 10_000;

/** One server process: a map, swept of expired entries when it is full. */
export class InProcessTicketStore extends TicketStore {
  private readonly tickets = new Map<string, { value: string; expiresAt: number }>();

  constructor(private readonly now: () => number) {
    super();
  }

  put(hash: string, value: string, expiresAt: number): Promise<void> {
    if (this.tickets.size >= MAX_OUTSTANDING) this.sweep();
    if (this.tickets.size >= MAX_OUTSTANDING) return Promise.reject(new RateLimitedError('Too many terminal tickets outstanding; try again in 30 s'));
    this.tickets.set(hash, { value, expiresAt });
    return Promise.resolve();
  }

  take(hash: string): Promise<string | null> {
    const entry = this.tickets.get(hash);
    this.tickets.delete(hash);
    return Promise.resolve(entry?.value ?? null);
  }

  private sweep(): void {
    const now = this.now();
    for (const [hash, entry] of this.tickets) if (entry.expiresAt <= now) this.tickets.delete(hash);
  }
}
