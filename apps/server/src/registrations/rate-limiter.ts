/**
 * Fixed-window counter per key (the source address). In-memory: with several replicas behind a
 * load balancer each enforces its own window, which bounds the total at replicas × limit.
 */
export class FixedWindowRateLimiter {
  private windowStart = 0;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Counts one hit; false when the key is over its limit in the current window. */
  tryHit(key: string, nowMs: number): boolean {
    if (nowMs - this.windowStart >= this.windowMs) {
      this.windowStart = nowMs;
      this.counts.clear();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count <= this.limit;
  }
}
