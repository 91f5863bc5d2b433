// Assertion evaluation shared by every check type. Pure.

export interface Assertion {
  source: string;
  comparison: string;
  property?: string;
  target?: string | number;
  regex?: string | null;
}

export interface AssertionOutcome {
  source: string;
  comparison: string;
  property: string;
  target: string;
  regex: string | null;
  actual: string | number | null;
  passed: boolean;
  error?: string;
}

function isNumeric(v: unknown): boolean {
  return typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)));
}

/** Applies the assertion's regex, if any: the first capture group, else the whole match, else null. */
function extract(actual: string | number | null, regex: string | null | undefined): string | number | null {
  if (!regex || actual === null) return actual;
  const m = new RegExp(regex).exec(String(actual));
  if (!m) return null;
  return m[1] ?? m[0];
}

export function compare(comparison: string, actual: string | number | null, target: string): boolean {
  switch (comparison) {
    case 'EQUALS':
      return isNumeric(actual) && isNumeric(target) ? Number(actual) === Number(target) : String(actual ?? '') === target;
    case 'NOT_EQUALS':
      return !compare('EQUALS', actual, target);
    case 'CONTAINS':
      return actual !== null && String(actual).includes(target);
    case 'NOT_CONTAINS':
      return !compare('CONTAINS', actual, target);
    case 'IS_EMPTY':
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

/** Evaluates assertions against the values a runner collected, keyed by source. */
export function evaluateAssertions(
  assertions: readonly Assertion[],
  valueOf: (a: Assertion) => string | number | null,
): AssertionOutcome[] {
  return assertions.map((a) => {
    const target = a.target === undefined ? '' : String(a.target);
    const base = { source: a.source, comparison: a.comparison, property: a.property ?? '', target, regex: a.regex ?? null };
    try {
      const actual = extract(valueOf(a), a.regex);
      return { ...base, actual, passed: compare(a.comparison, actual, target) };
    } catch (err) {
      return { ...base, actual: null, passed: false, error: (err as Error).message };
    }
  });
}

/** One sentence per failed assertion, for the result's error message. */
export function describeFailure(o: AssertionOutcome): string {
  const shown = o.actual === null ? 'nothing' : JSON.stringify(o.actual);
  return `assertion failed: ${o.source} ${o.comparison}${o.target !== '' ? ' ' + JSON.stringify(o.target) : ''} (got ${shown})`;
}
