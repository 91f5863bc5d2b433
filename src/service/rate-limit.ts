// Requests per key: a token bucket for each API key and private-location key, refilled at the
// configured rate and holding ten seconds' worth, so bursts pass and a runaway script (or a
// stolen key) is slowed to the rate. In memory: a restart refills every bucket.

const MAX_KEYS = 10_000;
const BURST_SECONDS = 10;

export class KeyRateLimit {
  private buckets = new Map<string, { tokens: number; at: number }>();
  private readonly capacity: number;

  /** `perSecond` 0 turns the limit off. */
  constructor(
    readonly perSecond: number,
    private now: () => number = Date.now,
  ) {
    this.capacity = perSecond * BURST_SECONDS;
  }

  /** Takes one request from the key's bucket: 0 when it may go ahead, else seconds to wait. */
  take(key: string): number {
    if (this.perSecond <= 0) return 0;
    const now = this.now();
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= MAX_KEYS) this.forgetFull(now);
      b = { tokens: this.capacity, at: now };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(this.capacity, b.tokens + ((now - b.at) / 1000) * this.perSecond);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.perSecond));
  }

  /** Buckets that have refilled hold nothing a new bucket would not: drop them. */
  private forgetFull(now: number): void {
    for (const [k, b] of this.buckets) if (b.tokens + ((now - b.at) / 1000) * this.perSecond >= this.capacity) this.buckets.delete(k);
  }
}
