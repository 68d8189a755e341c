export interface BackoffOptions {
  baseMs?: number;
  capMs?: number;
  /** Uniform in [0, 1); injected by tests. */
  random?: () => number;
}

/**
 * Exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff and
 * Jitter"): each delay is uniform in [0, min(cap, base·2^attempt)], so thousands of devices
 * dropped by one server restart spread their reconnects instead of arriving together.
 */
export class Backoff {
  private attempt = 0;
  private readonly baseMs: number;
  private readonly capMs: number;
  private readonly random: () => number;

  constructor(options: BackoffOptions = {}) {
    this.baseMs = options.baseMs ?? 1000;
    this.capMs = options.capMs ?? 60_000;
    this.random = options.random ?? Math.random;
  }

  /** The delay before the next attempt. */
  next(): number {
    const ceiling = Math.min(this.capMs, this.baseMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    return Math.floor(this.random() * ceiling);
  }

  /** After a connection that stayed up long enough: start again from the base. */
  reset(): void {
    this.attempt = 0;
  }
}
