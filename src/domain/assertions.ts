// Assertion evaluation shared by every check type. Pure.

export interface Assertion {
  source: string;
  comparison: string;
  property?: string;
  /** Compared as text; the API takes numbers and booleans too. */
  target?: string | number | boolean;
  regex?: string | null;
}

export interface AssertionOutcome {
  source: string;
  comparison: string;
  property: string;
  target: string;
  regex: string | null;
  actual: Actual;
  passed: boolean;
  error?: string;
}

function isNumeric(v: unknown): boolean {
  return typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)));
}

/** The assertion's regex applied to a value: the first capture group, else the whole match, else null. */
export function regexExtract(actual: Actual, regex: string | null | undefined): Actual {
  if (!regex || actual === null || typeof actual === 'object') return actual;
  const m = new RegExp(regex).exec(String(actual));
  if (!m) return null;
  return m[1] ?? m[0];
}

export type Actual = string | number | boolean | null | Actual[] | { [k: string]: Actual };

function same(a: Actual, target: string): boolean {
  if (a === null || typeof a === 'object') return JSON.stringify(a) === target;
  return isNumeric(a) && isNumeric(target) ? Number(a) === Number(target) : String(a) === target;
}

export function compare(comparison: string, actual: Actual, target: string): boolean {
  switch (comparison) {
    case 'HAS_KEY':
      return actual !== null && typeof actual === 'object' && !Array.isArray(actual) && Object.hasOwn(actual, target);
    case 'NOT_HAS_KEY':
      return !compare('HAS_KEY', actual, target);
    case 'HAS_VALUE':
      return Array.isArray(actual)
        ? actual.some((v) => same(v, target))
        : actual !== null && typeof actual === 'object'
          ? Object.values(actual).some((v) => same(v, target))
          : same(actual, target);
    case 'NOT_HAS_VALUE':
      return !compare('HAS_VALUE', actual, target);
    case 'IS_NULL':
      return actual === null;
    case 'NOT_NULL':
      return actual !== null;
    case 'EQUALS':
      return actual !== null && typeof actual === 'object'
        ? JSON.stringify(actual) === target
        : isNumeric(actual) && isNumeric(target)
          ? Number(actual) === Number(target)
          : String(actual ?? '') === target;
    case 'NOT_EQUALS':
      return !compare('EQUALS', actual, target);
    case 'CONTAINS':
      return actual !== null && (typeof actual === 'object' ? JSON.stringify(actual) : String(actual)).includes(target);
    case 'NOT_CONTAINS':
      return !compare('CONTAINS', actual, target);
    case 'IS_EMPTY':
      if (Array.isArray(actual)) return actual.length === 0;
      if (actual !== null && typeof actual === 'object') return Object.keys(actual).length === 0;
      return actual === null || String(actual).length === 0;
    case 'NOT_EMPTY':
      return !compare('IS_EMPTY', actual, target);
    case 'GREATER_THAN':
      return isNumeric(actual) && isNumeric(target) && Number(actual) > Number(target);
    case 'LESS_THAN':
      return isNumeric(actual) && isNumeric(target) && Number(actual) < Number(target);
    default:
      throw new Error(`unknown comparison ${comparison}`);
  }
}

/** Judges one assertion against the value found for it (after any regex), or the error finding it. */
export function judge(a: Assertion, found: Actual | Error): AssertionOutcome {
  const target = a.target === undefined ? '' : String(a.target);
  let actual: Actual = null;
  let passed = false;
  let error: string | undefined;
  if (found instanceof Error) error = found.message;
  else {
    actual = found;
    try {
      passed = compare(a.comparison, actual, target);
    } catch (err) {
      error = (err as Error).message;
    }
  }
  // One literal (no spread of a common base): this runs for every assertion of every run.
  const outcome: AssertionOutcome = {
    source: a.source,
    comparison: a.comparison,
    property: a.property ?? '',
    target,
    regex: a.regex ?? null,
    actual,
    passed,
  };
  if (error !== undefined) outcome.error = error;
  return outcome;
}

/**
 * Evaluates assertions against the values a runner collected, keyed by source, in this thread.
 * Only for values a user's pattern cannot make slow; runners judge regexes and JSONPath through
 * `assess` (src/checks/assess.ts), which bounds their time.
 */
export function evaluateAssertions(assertions: readonly Assertion[], actualOf: (a: Assertion) => Actual): AssertionOutcome[] {
  return assertions.map((a) => {
    let found: Actual | Error;
    try {
      found = regexExtract(actualOf(a), a.regex);
    } catch (err) {
      found = err as Error;
    }
    return judge(a, found);
  });
}

/** One sentence per failed assertion, for the result's error message. */
export function describeFailure(o: AssertionOutcome): string {
  const shown = o.actual === null ? 'nothing' : JSON.stringify(o.actual);
  return `assertion failed: ${o.source} ${o.comparison}${o.target !== '' ? ` ${JSON.stringify(o.target)}` : ''} (got ${shown})`;
}
