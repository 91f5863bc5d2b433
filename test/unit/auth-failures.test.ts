// Guessing keys is slow: an address past its failed authentications for the minute waits.

import { describe, expect, it } from 'vitest';
import { AuthFailures } from '../../src/service/auth-failures.js';
import { ApiError, countingFailures } from '../../src/service/errors.js';

describe('failed authentications', () => {
  it('let an address fail its allowance, then make it wait out the minute; others are not affected', () => {
    let now = 1_000_000;
    const f = new AuthFailures(3, () => now);
    for (let i = 0; i < 3; i++) {
      expect(f.retryAfter('10.0.0.1')).toBe(0);
      f.failed('10.0.0.1');
    }
    expect(f.retryAfter('10.0.0.1')).toBe(60);
    expect(f.retryAfter('10.0.0.2')).toBe(0);
    now += 45_500;
    expect(f.retryAfter('10.0.0.1')).toBe(15);
    now += 14_500;
    expect(f.retryAfter('10.0.0.1')).toBe(0);
    f.failed('10.0.0.1');
    expect(f.retryAfter('10.0.0.1')).toBe(0);
  });

  it('count only refusals (401), and refuse with 429 before authenticating once over', async () => {
    const f = new AuthFailures(2, () => 0);
    let asked = 0;
    const refuse = () =>
      countingFailures(f, 'a', async () => {
        asked++;
        throw new ApiError(401, 'Invalid API key');
      });
    const fine = () => countingFailures(f, 'a', async () => 'ok');
    await expect(fine()).resolves.toBe('ok');
    await expect(refuse()).rejects.toMatchObject({ statusCode: 401 });
    await expect(refuse()).rejects.toMatchObject({ statusCode: 401 });
    await expect(refuse()).rejects.toMatchObject({ statusCode: 429, attributes: { retryAfterSeconds: 60 } });
    await expect(fine()).rejects.toMatchObject({ statusCode: 429 });
    expect(asked).toBe(2);
  });
});
