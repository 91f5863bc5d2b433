// Last-minute quantiles: exact within the window, forgetting what is older, bounded in memory.

import { describe, it, expect } from 'vitest';
import { RecentQuantiles } from '../../src/service/recent-quantiles.js';

describe('recent quantiles', () => {
  it('are exact over the values of the last minute, and forget older ones', () => {
    let now = 1_000_000;
    const r = new RecentQuantiles(60_000, 10_000, 10_000, () => now);
    expect(r.quantiles([0.5]).map(Number.isNaN)).toEqual([true]);
    for (let v = 1; v <= 100; v++) r.observe(v);
    expect(r.quantiles([0.5, 0.9, 0.99])).toEqual([50, 90, 99]);
    // Forty seconds on, slow values arrive: both minutes' worth count.
    now += 40_000;
    for (let i = 0; i < 100; i++) r.observe(1000);
    expect(r.quantiles([0.5, 0.99])).toEqual([100, 1000]);
    // Past a minute from the first values, only the slow ones remain.
    now += 25_000;
    expect(r.quantiles([0.5])).toEqual([1000]);
    now += 60_000;
    expect(r.quantiles([0.5]).map(Number.isNaN)).toEqual([true]);
  });

  it('keep a bounded, fair sample of a busy bucket', () => {
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const r = new RecentQuantiles(60_000, 10_000, 1000, () => 5_000_000, random);
    for (let v = 0; v < 100_000; v++) r.observe(v);
    const [p50, p99] = r.quantiles([0.5, 0.99]);
    // A thousand kept of 100,000: the median and p99 within a few per cent of the truth.
    expect(Math.abs(p50 - 50_000)).toBeLessThan(5_000);
    expect(Math.abs(p99 - 99_000)).toBeLessThan(1_500);
  });
});
