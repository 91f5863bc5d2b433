// What one result may carry: an oversized result is cut before it is sent, and says so.

import { describe, expect, it } from 'vitest';
import { capResult, RESULT_MAX_BYTES, RESULT_MAX_STRING } from '../../src/domain/result-cap.js';
import type { RunResult } from '../../src/domain/run.js';

const result = (detail: Record<string, unknown>, error: string | null = null): RunResult => ({
  jobId: 'c:1:x',
  checkId: 'c',
  location: 'x',
  dueAt: 1,
  startedAt: 1,
  stoppedAt: 2,
  responseTime: 1,
  hasFailures: false,
  hasErrors: false,
  isDegraded: false,
  overMaxResponseTime: false,
  error,
  detail,
});

describe('capResult', () => {
  it('leaves a result within the limits as it is', () => {
    const r = result({ response: { body: 'ok', statusCode: 200 }, assertions: [{ actual: 'ok', passed: true }] });
    expect(capResult(r)).toBe(r);
  });

  it('cuts a long string, and says so', () => {
    const capped = capResult(result({ response: { body: 'a'.repeat(100_000), statusCode: 200 } }, 'x'.repeat(RESULT_MAX_STRING + 10)));
    const response = capped.detail.response as { body: string; statusCode: number };
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(`${'a'.repeat(RESULT_MAX_STRING)}… [cut by the agent: 100000 characters in all]`);
    expect(capped.error).toMatch(/^x+… \[cut by the agent: 65546 characters in all\]$/);
    expect(capped.detail.truncated).toBe(`1 strings longer than ${RESULT_MAX_STRING} characters were cut`);
  });

  it('cuts shorter when many strings are long: 80 assertions on a 1 MB body keep their verdicts', () => {
    const body = 'a'.repeat(1024 * 1024);
    const assertions = Array.from({ length: 80 }, () => ({ source: 'TEXT_BODY', comparison: 'CONTAINS', actual: body, passed: true }));
    const r = result({ response: { body }, assertions });
    const capped = capResult(r);
    const kept = capped.detail.assertions as { actual: string; passed: boolean }[];
    expect(kept).toHaveLength(80);
    expect(
      kept.every((a) => a.passed && a.actual.length < 8300 && a.actual.endsWith('[cut by the agent: 1048576 characters in all]')),
    ).toBe(true);
    expect(JSON.stringify(capped).length).toBeLessThan(RESULT_MAX_BYTES);
    expect(capped.detail.truncated).toBe('81 strings longer than 8192 characters were cut');
    // The result it came from is not changed.
    expect((r.detail.response as { body: string }).body).toHaveLength(1024 * 1024);
  });

  it('drops the largest parts of a detail that is still too big, naming them', () => {
    const many = Array.from({ length: 40_000 }, (_, i) => ({ name: `header-${i}`, value: 'v'.repeat(30) }));
    const capped = capResult(result({ headers: many, response: { statusCode: 500 } }));
    expect(capped.detail.headers).toBeUndefined();
    expect(capped.detail.response).toEqual({ statusCode: 500 });
    expect(capped.detail.truncated).toMatch(/headers dropped: a result carries at most 1048576 bytes/);
    expect(JSON.stringify(capped).length).toBeLessThan(RESULT_MAX_BYTES);
  });
});
