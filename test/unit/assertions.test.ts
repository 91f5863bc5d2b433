import { describe, it, expect } from 'vitest';
import { evaluateAssertions, compare } from '../../src/domain/assertions.js';
import { judge } from '../../src/domain/run.js';
import { checkRuleViolation } from '../../src/domain/check-rules.js';

describe('comparisons', () => {
  it.each([
    ['EQUALS', 'PONG', 'PONG', true],
    ['EQUALS', '200', '200.0', true],
    ['NOT_EQUALS', 'a', 'b', true],
    ['CONTAINS', 'hello world', 'world', true],
    ['NOT_CONTAINS', 'hello', 'world', true],
    ['IS_EMPTY', '', '', true],
    ['NOT_EMPTY', '', '', false],
    ['GREATER_THAN', 12, '10', true],
    ['LESS_THAN', 12, '10', false],
    ['LESS_THAN', 'abc', '10', false],
  ] as const)('%s(%j, %j) is %s', (cmp, actual, target, expected) => {
    expect(compare(cmp, actual, target)).toBe(expected);
  });
});

describe('assertions', () => {
  it('apply a regex before comparing, using the first group', () => {
    const [o] = evaluateAssertions(
      [{ source: 'RESPONSE_DATA', comparison: 'EQUALS', target: '42', regex: 'answer=(\\d+)' }],
      () => 'the answer=42 here',
    );
    expect(o.passed).toBe(true);
    expect(o.actual).toBe('42');
  });
  it('report a bad regex as a failed assertion, not a crash', () => {
    const [o] = evaluateAssertions([{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'x', regex: '(' }], () => 'x');
    expect(o.passed).toBe(false);
    expect(o.error).toMatch(/regular expression/i);
  });
});

describe('verdict', () => {
  const check = { name: 'c', request: {}, degradedResponseTime: 100, maxResponseTime: 200, shouldFail: false };
  const probe = (responseTime: number, error: string | null = null) => ({ responseTime, error, assertions: [], detail: {} });
  it('passes fast runs, degrades slow ones, fails those at maxResponseTime', () => {
    expect(judge(check, probe(50))).toMatchObject({ hasFailures: false, isDegraded: false });
    expect(judge(check, probe(150))).toMatchObject({ hasFailures: false, isDegraded: true });
    expect(judge(check, probe(200))).toMatchObject({ hasFailures: true, overMaxResponseTime: true });
  });
  it('shouldFail inverts the outcome', () => {
    const inverted = { ...check, shouldFail: true };
    expect(judge(inverted, probe(10, 'ECONNREFUSED')).hasFailures).toBe(false);
    expect(judge(inverted, probe(10)).hasFailures).toBe(true);
  });
});

describe('check rules', () => {
  it('refuses degradedResponseTime above maxResponseTime', () => {
    expect(checkRuleViolation({ frequency: 10, frequencyOffset: null, degradedResponseTime: 4000, maxResponseTime: 3000 })?.field).toBe(
      'degradedResponseTime',
    );
  });
  it('names frequencyOffset when it does not fit the frequency', () => {
    expect(checkRuleViolation({ frequency: 0, frequencyOffset: 15, degradedResponseTime: 1, maxResponseTime: 2 })?.field).toBe(
      'frequencyOffset',
    );
  });
});

describe('JSON comparisons and JSONPath', () => {
  const doc = { status: 'up', items: [1, 2, 3], meta: { owner: null } };
  it('reads values by JSONPath', async () => {
    const { jsonPath } = await import('../../src/domain/json-path.js');
    expect(jsonPath(doc, '$.status')).toBe('up');
    expect(jsonPath(doc, 'items[1]')).toBe(2);
    expect(jsonPath(doc, '$.items[*]')).toEqual([1, 2, 3]);
    expect(jsonPath(doc, '$.nothing')).toBeNull();
  });
  it.each([
    ['HAS_KEY', { a: 1 }, 'a', true],
    ['HAS_KEY', [1], '0', false],
    ['NOT_HAS_KEY', { a: 1 }, 'b', true],
    ['HAS_VALUE', [1, 2, 3], '2', true],
    ['HAS_VALUE', { a: 'x' }, 'x', true],
    ['NOT_HAS_VALUE', [1, 2], '3', true],
    ['IS_NULL', null, '', true],
    ['NOT_NULL', 0, '', true],
    ['IS_EMPTY', [], '', true],
    ['NOT_EMPTY', { a: 1 }, '', true],
    ['EQUALS', [1, 2], '[1,2]', true],
    ['CONTAINS', ['spf1 -all'], 'spf1', true],
  ] as const)('%s(%j, %j) is %s', (cmp, actual, target, expected) => {
    expect(compare(cmp, actual as never, target)).toBe(expected);
  });
});
