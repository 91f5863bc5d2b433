// Requests per key: bursts pass, a steady excess waits, and every key has a bucket of its own.

import { describe, expect, it } from 'vitest';
import { KeyRateLimit } from '../../src/service/rate-limit.js';

describe('request rate per key', () => {
  it('lets ten seconds of requests through at once, then one per 1/rate seconds', () => {
    let now = 0;
    const limit = new KeyRateLimit(5, () => now);
    for (let i = 0; i < 50; i++) expect(limit.take('k')).toBe(0);
    expect(limit.take('k')).toBe(1);
    now += 200; // one token back
    expect(limit.take('k')).toBe(0);
    expect(limit.take('k')).toBe(1);
    expect(limit.take('other')).toBe(0);
  });

  it('says how long to wait, in whole seconds', () => {
    let now = 0;
    const limit = new KeyRateLimit(0.5, () => now);
    for (let i = 0; i < 5; i++) limit.take('k');
    expect(limit.take('k')).toBe(2);
    now += 1000;
    expect(limit.take('k')).toBe(1);
    now += 1000;
    expect(limit.take('k')).toBe(0);
  });

  it('is off at 0', () => {
    const limit = new KeyRateLimit(0);
    for (let i = 0; i < 10_000; i++) expect(limit.take('k')).toBe(0);
  });
});
