export interface BackoffOptions {
  baseMs?: number;
  capMs?: number;
  /** The ceiling of the first `quickAttempts` delays (see Backoff). */
  quickCapMs?: number;
  quickAttempts?: number;
  /** Uniform in [0, 1); injected by tests. */
  random?: () => number;
}

/**
 * Exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff and
 * Jitter"): each delay is uniform in [0, ceiling], so thousands of devices dropped by one server
 * restart spread their reconnects instead of arriving together. The ceiling stays low (1 s, 2 s,
 * then 4 s) for the first `quickAttempts` attempts, about half a minute, so a fleet is back within
 * seconds of a restarted server answering (a refused connection costs the server next to
 * nothing); only then does it double on to the cap (8 s, 16 s, … 60 s) for a server that stays down.
 */
export class Backoff {
  private attempt = 0;
  private readonly baseMs: number;
  private readonly capMs: number;
  private readonly quickCapMs: number;
  private readonly quickAttempts: number;
  private readonly random: () => number;

  constructor(options: BackoffOptions = {}) {
    this.baseMs = options.baseMs ?? 1000;
    this.capMs = options.capMs ?? 60_000;
    this.quickCapMs = options.quickCapMs ?? 4000;
    this.quickAttempts = options.quickAttempts ?? 15;
    this.random = options.random ?? Math.random;
  }

  /** The delay before the next attempt. */
  next(): number {
    const n = this.attempt++;
    const ceiling =
      n < this.quickAttempts
        ? Math.min(this.quickCapMs, this.baseMs * 2 ** Math.min(n, 30))
        : Math.min(this.capMs, this.quickCapMs * 2 ** Math.min(n - this.quickAttempts + 1, 30));
    return Math.floor(this.random() * ceiling);
  }

  /** After a connection that stayed up long enough: start again from the base. */
  reset(): void {
    this.attempt = 0;
  }
}
