// The service's periodic work (scheduling, lease writes, expiry sweeps) runs on one grid of
// instants behind one timer. On small hosts a wakeup costs far more than the work it does for
// a few runs, so tasks that come due in the same tick share it instead of each waking the
// process on its own.

import type { Clock, ClockTimer } from './clock.js';

/**
 * The service's grid. At each tick the scheduler hands out the runs due before the next one,
 * and agents long-polling for runs wake once a tick however many it brings. Wider ticks cost
 * less per run at low rates (a wakeup costs the same for one run or many): at 10 TCP checks/s,
 * 500 ms → 1 s took the service from ~1.0 to ~0.7 CPU-ms per result.
 */
export const SERVICE_TICK_MS = 1000;

interface Task {
  at: number;
  run: (at: number) => void;
}

/**
 * A timer may fire a little before its instant by the wall clock (Node counts from the time
 * its loop last read, which can be a few milliseconds old): tasks that close are run with it,
 * rather than costing a wakeup of their own.
 */
const EARLY_MS = 5;

export class Ticker {
  private tasks = new Map<string, Task>();
  private timer: ClockTimer | null = null;
  private timerAt = Infinity;
  private stopped = false;

  constructor(
    private clock: Clock,
    readonly everyMs: number,
  ) {}

  /** The first instant of the grid at or after t. */
  next(t: number): number {
    return Math.ceil(t / this.everyMs) * this.everyMs;
  }

  /**
   * Runs `run` once, at the first instant of the grid at or after t, passing that instant. A
   * task of the same key still waiting is replaced, and keeps the earlier time of the two.
   */
  at(key: string, t: number, run: (at: number) => void): void {
    if (this.stopped) return;
    const old = this.tasks.get(key);
    const at = Math.min(this.next(t), old?.at ?? Infinity);
    this.tasks.set(key, { at, run });
    this.arm(at);
  }

  cancel(key: string): void {
    this.tasks.delete(key);
  }

  /** Cancels every task; later ones are ignored (what they would do, stopping does itself). */
  stop(): void {
    this.stopped = true;
    this.tasks.clear();
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
  }

  private arm(at: number): void {
    if (at >= this.timerAt) return;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = this.clock.setTimeout(() => this.fire(), Math.max(0, at - this.clock.now()));
  }

  private fire(): void {
    this.timer = null;
    this.timerAt = Infinity;
    // Tasks that the ones run here add for the same tick run in this wakeup too (a few rounds
    // at most, so a task that keeps asking for "now" cannot hold the loop).
    for (let round = 0; round < 4; round++) {
      const now = this.clock.now();
      const due = [...this.tasks].filter(([, task]) => task.at <= now + EARLY_MS);
      if (!due.length) break;
      for (const [key, task] of due) {
        if (this.tasks.get(key) !== task) continue;
        this.tasks.delete(key);
        task.run(task.at);
      }
    }
    let first = Infinity;
    for (const task of this.tasks.values()) first = Math.min(first, task.at);
    if (first < Infinity) this.arm(first);
  }
}
