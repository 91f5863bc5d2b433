import { describe, it, expect } from 'vitest';
import {
  backoffSeconds,
  effectiveRetry,
  isNetworkError,
  judgeAttempt,
  nextRetryDelayMs,
  retryLocation,
  type RetryStrategy,
} from '../../src/domain/retries.js';

describe('retry strategies', () => {
  it('space retries as documented: FIXED b, b; LINEAR b·n; EXPONENTIAL bⁿ', () => {
    const b = (type: RetryStrategy['type']) => [1, 2, 3].map((n) => backoffSeconds({ type, baseBackoffSeconds: 5 }, n));
    expect(b('FIXED')).toEqual([5, 5, 5]);
    expect(b('LINEAR')).toEqual([5, 10, 15]);
    expect(b('EXPONENTIAL')).toEqual([5, 25, 125]);
  });
  it('stop at maxRetries, at maxDurationSeconds, and after one for SINGLE_RETRY', () => {
    const s: RetryStrategy = { type: 'LINEAR', baseBackoffSeconds: 10, maxRetries: 2, maxDurationSeconds: 600 };
    expect(nextRetryDelayMs(s, { retries: 0, elapsedMs: 1000, networkError: false })).toBe(10_000);
    expect(nextRetryDelayMs(s, { retries: 1, elapsedMs: 12_000, networkError: false })).toBe(20_000);
    expect(nextRetryDelayMs(s, { retries: 2, elapsedMs: 33_000, networkError: false })).toBeNull();
    expect(nextRetryDelayMs({ ...s, maxDurationSeconds: 15 }, { retries: 0, elapsedMs: 6000, networkError: false })).toBeNull();
    const single: RetryStrategy = { type: 'SINGLE_RETRY', baseBackoffSeconds: 1, maxRetries: 5 };
    expect(nextRetryDelayMs(single, { retries: 0, elapsedMs: 0, networkError: false })).toBe(1000);
    expect(nextRetryDelayMs(single, { retries: 1, elapsedMs: 2000, networkError: false })).toBeNull();
  });
  it('with onlyOn NETWORK_ERROR, retry failures without an answer only', () => {
    const s: RetryStrategy = { type: 'FIXED', baseBackoffSeconds: 1, onlyOn: ['NETWORK_ERROR'] };
    expect(nextRetryDelayMs(s, { retries: 0, elapsedMs: 0, networkError: false })).toBeNull();
    expect(nextRetryDelayMs(s, { retries: 0, elapsedMs: 0, networkError: true })).toBe(1000);
    expect(isNetworkError('connect ECONNREFUSED 127.0.0.1:9', false)).toBe(true);
    expect(isNetworkError('status code 503', true)).toBe(false);
    expect(isNetworkError('assertion failed: STATUS_CODE EQUALS "200" (got 503)', true)).toBe(false);
  });
  it('retry in the same location, or (sameRegion false) in the others in turn', () => {
    const s: RetryStrategy = { type: 'FIXED', sameRegion: false };
    expect([1, 2, 3].map((n) => retryLocation(s, ['a', 'b', 'c'], 'a', n))).toEqual(['b', 'c', 'b']);
    expect(retryLocation({ type: 'FIXED' }, ['a', 'b'], 'a', 1)).toBe('a');
    expect(retryLocation(s, ['a'], 'a', 1)).toBe('a');
  });
  it('take doubleCheck without a strategy as one immediate retry elsewhere', () => {
    expect(effectiveRetry(null, true)).toMatchObject({ type: 'SINGLE_RETRY', baseBackoffSeconds: 0, sameRegion: false });
    expect(effectiveRetry(null, false)).toBeNull();
    expect(effectiveRetry({ type: 'FIXED' }, true)).toEqual({ type: 'FIXED' });
  });
});

describe('a finished run of a scheduled check', () => {
  const s: RetryStrategy = { type: 'FIXED', baseBackoffSeconds: 5, maxRetries: 2, sameRegion: false };
  const run = { location: 'eu-west-1', startedAt: 1000, stoppedAt: 2000, failed: true, networkError: false };
  const ids = () => 'seq-1';

  it('a failure with retries left is an ATTEMPT naming its retry: when, where, its place in the sequence', () => {
    expect(judgeAttempt(s, run, ['eu-west-1', 'us-east-1'], ids)).toEqual({
      resultType: 'ATTEMPT',
      sequenceId: 'seq-1',
      attempts: 0,
      retry: { delayMs: 5000, location: 'us-east-1', sequence: { id: 'seq-1', attempt: 1, startedAt: 1000 } },
    });
  });

  it('the retry continues the sequence and counts from its first start; the last one is FINAL', () => {
    const sequence = { id: 'seq-1', attempt: 1, startedAt: 1000 };
    const second = judgeAttempt(s, { ...run, sequence, startedAt: 7000, stoppedAt: 8000 }, ['eu-west-1'], () => 'other');
    expect(second).toMatchObject({
      resultType: 'ATTEMPT',
      sequenceId: 'seq-1',
      attempts: 1,
      retry: { sequence: { attempt: 2, startedAt: 1000 } },
    });
    const last = judgeAttempt(s, { ...run, sequence: { ...sequence, attempt: 2 } }, ['eu-west-1'], ids);
    expect(last).toEqual({ resultType: 'FINAL', sequenceId: 'seq-1', attempts: 2 });
  });

  it('a pass ends the sequence; without a strategy there is none', () => {
    expect(judgeAttempt(s, { ...run, failed: false, sequence: { id: 'seq-9', attempt: 1, startedAt: 0 } }, [], ids)).toEqual({
      resultType: 'FINAL',
      sequenceId: 'seq-9',
      attempts: 1,
    });
    expect(judgeAttempt(null, run, [], ids)).toEqual({ resultType: 'FINAL', sequenceId: null, attempts: 0 });
    expect(judgeAttempt(s, { ...run, failed: false }, [], ids)).toEqual({ resultType: 'FINAL', sequenceId: null, attempts: 0 });
  });
});
