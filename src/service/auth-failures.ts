// Guessing keys is made slow: an address that fails to authenticate too often within a minute is
// answered 429 (with Retry-After) until that minute is over, before any key it sends is looked
// at. Counted per address, in memory: a restart forgets, which costs an attacker a restart.

const WINDOW_MS = 60_000;
const MAX_ADDRESSES = 10_000;

export class AuthFailures {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(
    private perMinute: number,
    private now: () => number = Date.now,
  ) {}

  /** Seconds the address must wait before it may try again; 0 when it may now. */
  retryAfter(address: string): number {
    const w = this.windows.get(address);
    if (!w || w.count < this.perMinute) return 0;
    const left = w.start + WINDOW_MS - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  failed(address: string): void {
    const now = this.now();
    let w = this.windows.get(address);
    if (!w || now - w.start >= WINDOW_MS) {
      if (this.windows.size >= MAX_ADDRESSES) for (const [a, x] of this.windows) if (now - x.start >= WINDOW_MS) this.windows.delete(a);
      w = { start: now, count: 0 };
      this.windows.set(address, w);
    }
    w.count++;
  }
}
