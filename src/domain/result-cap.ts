// What one result may carry. Results travel in batches and wait in the agent's spool in order:
// a result the service cannot take (a 1 MB body copied into 80 assertion `actual`s is an 84 MB
// result) must not be made in the first place. Long strings are cut, and a detail still too big
// loses its largest parts; the result says what was cut.

import type { RunResult } from './run.js';

/** Longest string a result keeps (a response body, an assertion's actual value, a log line). */
export const RESULT_MAX_STRING = 64 * 1024;
/** Largest result, as JSON, an agent sends: far below what the service takes in one request. */
export const RESULT_MAX_BYTES = 1024 * 1024;

/** Approximate JSON size, counting without building the text; stops counting past `limit`. */
function sizeOf(v: unknown, limit: number): number {
  if (typeof v === 'string') return v.length + 2;
  if (v === null || typeof v !== 'object') return 8;
  let n = 2;
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    n += sizeOf(x, limit) + 1;
    if (n > limit) return n;
  }
  if (!Array.isArray(v)) n += Object.keys(v).length * 12;
  return n;
}

/** Shorter cuts, tried in turn when many long strings together are still too much. */
const CUTS = [RESULT_MAX_STRING, 8192, 1024, 256];

function hasLongString(v: unknown): boolean {
  if (typeof v === 'string') return v.length > RESULT_MAX_STRING;
  if (v === null || typeof v !== 'object') return false;
  for (const x of Array.isArray(v) ? v : Object.values(v)) if (hasLongString(x)) return true;
  return false;
}

/** A copy with strings longer than max cut; `cuts.n` counts them. */
function cutStrings(v: unknown, max: number, cuts = { n: 0 }): unknown {
  if (typeof v === 'string') {
    if (v.length <= max) return v;
    cuts.n++;
    return `${v.slice(0, max)}… [cut by the agent: ${v.length} characters in all]`;
  }
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => cutStrings(x, max, cuts));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cutStrings(x, max, cuts)]));
}

/**
 * The result as it may be sent: unchanged (the same object) when it is within the limits, which
 * is nearly always; otherwise with long strings cut (shorter if many are long) and, if that is
 * not enough, the largest parts of its detail dropped; `detail.truncated` says what was done.
 */
export function capResult(r: RunResult): RunResult {
  if (
    !hasLongString(r.detail) &&
    (r.error?.length ?? 0) <= RESULT_MAX_STRING &&
    sizeOf(r.detail, RESULT_MAX_BYTES) < RESULT_MAX_BYTES - 4096
  )
    return r;
  let detail = r.detail;
  const notes: string[] = [];
  for (const max of CUTS) {
    const cuts = { n: 0 };
    detail = cutStrings(r.detail, max, cuts) as Record<string, unknown>;
    if (sizeOf(detail, RESULT_MAX_BYTES) < RESULT_MAX_BYTES - 4096 || max === CUTS[CUTS.length - 1]) {
      if (cuts.n) notes.push(`${cuts.n} strings longer than ${max} characters were cut`);
      break;
    }
  }
  const parts = Object.keys(detail)
    .map((k) => [k, sizeOf(detail[k], Infinity)] as const)
    .sort((a, b) => b[1] - a[1]);
  let size = parts.reduce((n, [, s]) => n + s, 0);
  const dropped: string[] = [];
  for (const [k, s] of parts) {
    if (size < RESULT_MAX_BYTES - 4096) break;
    delete detail[k];
    dropped.push(k);
    size -= s;
  }
  if (dropped.length) notes.push(`${dropped.join(', ')} dropped: a result carries at most ${RESULT_MAX_BYTES} bytes`);
  detail.truncated = notes.join('; ');
  return { ...r, error: r.error && (cutStrings(r.error, RESULT_MAX_STRING) as string), detail };
}
