// The service's shared tick: periodic work lands on one grid, so tasks due in the same tick
// cost one wakeup between them.

import { describe, expect, it } from 'vitest';
import { Ticker } from '../../src/service/ticker.js';
import type { Clock } from '../../src/service/clock.js';

/** A clock the test moves; counts the timers that really fire (each one a wakeup). */
class CountingClock implements Clock {
  fired = 0;
  private timers = new Set<{ at: number; fn: () => void }>();
  constructor(public t: number) {}
  now() {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number) {
    const timer = { at: this.t + ms, fn };
    this.timers.add(timer);
    return timer;
  }
  clearTimeout(timer: unknown) {
    this.timers.delete(timer as { at: number; fn: () => void });
  }
  /** Moves to t, firing due timers; `early` fires them that much before their time, as Node may. */
  set(t: number, early = 0) {
    this.t = t;
    for (const timer of [...this.timers].sort((a, b) => a.at - b.at)) {
      if (timer.at - early > t) continue;
      this.timers.delete(timer);
      this.fired++;
      timer.fn();
    }
  }
}

describe('Ticker', () => {
  it('runs tasks at the first grid instant at or after their time, together', () => {
    const clock = new CountingClock(10_250);
    const ticker = new Ticker(clock, 1000);
    const ran: [string, number][] = [];
    ticker.at('a', 10_300, (at) => ran.push(['a', at]));
    ticker.at('b', 10_999, (at) => ran.push(['b', at]));
    ticker.at('c', 11_001, (at) => ran.push(['c', at]));
    clock.set(10_999);
    expect(ran).toEqual([]);
    clock.set(11_000);
    expect(ran).toEqual([
      ['a', 11_000],
      ['b', 11_000],
    ]);
    clock.set(12_000);
    expect(ran).toEqual([
      ['a', 11_000],
      ['b', 11_000],
      ['c', 12_000],
    ]);
    expect(clock.fired).toBe(2);
  });

  it('keeps the earlier time when a task is asked for again, with the newer callback', () => {
    const clock = new CountingClock(0);
    const ticker = new Ticker(clock, 500);
    const ran: string[] = [];
    ticker.at('flush', 400, () => ran.push('first'));
    ticker.at('flush', 1400, () => ran.push('second'));
    clock.set(500);
    expect(ran).toEqual(['second']);
    clock.set(1500);
    expect(ran).toEqual(['second']);
  });

  it('runs a task its timer reached a few milliseconds early, with the grid instant', () => {
    const clock = new CountingClock(0);
    const ticker = new Ticker(clock, 1000);
    const at: number[] = [];
    ticker.at('schedule', 1000, (t) => at.push(t));
    clock.set(997, 5);
    expect(at).toEqual([1000]);
    expect(clock.fired).toBe(1);
  });

  it('runs a task added while others run in the same wakeup when it is due then', () => {
    const clock = new CountingClock(0);
    const ticker = new Ticker(clock, 1000);
    const ran: string[] = [];
    ticker.at('first', 1000, () => {
      ran.push('first');
      ticker.at('then', clock.now(), () => ran.push('then'));
    });
    clock.set(1000);
    expect(ran).toEqual(['first', 'then']);
    expect(clock.fired).toBe(1);
  });

  it('forgets cancelled tasks, and takes none once stopped', () => {
    const clock = new CountingClock(0);
    const ticker = new Ticker(clock, 1000);
    const ran: string[] = [];
    ticker.at('gone', 1000, () => ran.push('gone'));
    ticker.at('kept', 1000, () => ran.push('kept'));
    ticker.cancel('gone');
    clock.set(1000);
    ticker.stop();
    ticker.at('late', 2000, () => ran.push('late'));
    clock.set(5000);
    expect(ran).toEqual(['kept']);
  });
});
