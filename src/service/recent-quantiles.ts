// Quantiles of the last minute, cheap to feed: a value goes into the current ten-second bucket
// (an array append; past a bucket's cap, reservoir sampling keeps a fair sample), and the
// sorting waits for a scrape. prom-client's Summary fed a t-digest in each of its six age buckets
// on every observation, several per cent of the service's CPU while storing results.

export class RecentQuantiles {
  private buckets: { start: number; values: number[]; seen: number }[] = [];

  constructor(
    private readonly windowMs = 60_000,
    private readonly bucketMs = 10_000,
    /** Values kept per bucket: enough for p99 to be exact up to this many a bucket. */
    private readonly cap = 10_000,
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {}

  observe(v: number): void {
    const t = this.now();
    let b = this.buckets[this.buckets.length - 1];
    if (!b || t - b.start >= this.bucketMs) {
      b = { start: t - (t % this.bucketMs), values: [], seen: 0 };
      this.buckets.push(b);
      this.prune(t);
    }
    b.seen++;
    if (b.values.length < this.cap) b.values.push(v);
    else {
      const i = Math.floor(this.random() * b.seen);
      if (i < this.cap) b.values[i] = v;
    }
  }

  /** The q-quantiles (nearest rank) of the window's values; NaN while it holds none. */
  quantiles(qs: readonly number[]): number[] {
    this.prune(this.now());
    const all = this.buckets.flatMap((b) => b.values).sort((a, b) => a - b);
    return qs.map((q) => (all.length ? all[Math.min(all.length - 1, Math.max(0, Math.ceil(q * all.length) - 1))] : NaN));
  }

  private prune(t: number): void {
    while (this.buckets.length && this.buckets[0].start <= t - this.windowMs) this.buckets.shift();
  }
}
