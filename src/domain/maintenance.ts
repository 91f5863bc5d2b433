// Maintenance windows: when their occurrences are, and which checks they pause or silence. Pure.
// Repeats keep local wall-clock time in the window's time zone across daylight-saving changes
// (a start in the spring-forward gap moves forward, one in the fall-back overlap takes the
// first), and monthly repeats on the 29th-31st fall on the month's last day when it is shorter.

import { DateTime, IANAZone } from 'luxon';

export const REPEAT_UNITS = ['DAY', 'WEEK', 'MONTH'] as const;
export type RepeatUnit = (typeof REPEAT_UNITS)[number];

export interface MaintenanceWindow {
  startsAt: number;
  endsAt: number;
  repeatUnit: RepeatUnit | null;
  /** null: once. */
  repeatInterval: number | null;
  /** The last local calendar date (YYYY-MM-DD) on which an occurrence may start; null: no end. */
  repeatEndsAt: string | null;
  /** IANA zone; null: UTC. */
  timezone: string | null;
  tags: string[];
  pauseAllChecks: boolean;
  silenceAllAlerts: boolean;
  silenceAlertsTags: string[];
}

export interface Occurrence {
  startsAt: number;
  endsAt: number;
}

export const isTimeZone = (zone: string): boolean => IANAZone.isValidZone(zone);

const UNIT = { DAY: 'days', WEEK: 'weeks', MONTH: 'months' } as const;
const APPROX_MS = { DAY: 86_400_000, WEEK: 7 * 86_400_000, MONTH: 30.436875 * 86_400_000 };

/** The start of occurrence k (0 = the first), or null when the window does not repeat that far. */
function startOf(w: MaintenanceWindow, first: DateTime, k: number): number | null {
  if (k < 0) return null;
  if (k === 0) return w.startsAt;
  if (!w.repeatUnit || !w.repeatInterval) return null;
  // Luxon adds calendar units in local time: wall-clock kept, month ends clamped.
  const start = first.plus({ [UNIT[w.repeatUnit]]: k * w.repeatInterval });
  if (w.repeatEndsAt && start.toISODate()! > w.repeatEndsAt) return null;
  return start.toMillis();
}

/** The occurrence under way at `t`, if any. */
export function occurrenceAt(w: MaintenanceWindow, t: number): Occurrence | null {
  const length = w.endsAt - w.startsAt;
  if (t < w.startsAt || length <= 0) return null;
  if (!w.repeatUnit || !w.repeatInterval) return t < w.endsAt ? { startsAt: w.startsAt, endsAt: w.endsAt } : null;
  const first = DateTime.fromMillis(w.startsAt, { zone: w.timezone ?? 'UTC' });
  // Estimate which occurrence began last, then look at its neighbours (DST and month lengths
  // move starts by hours or days against the estimate).
  const guess = Math.floor((t - w.startsAt) / (APPROX_MS[w.repeatUnit] * w.repeatInterval));
  for (let k = guess + 1; k >= guess - 2; k--) {
    const start = startOf(w, first, k);
    if (start === null || start > t) continue;
    return t < start + length ? { startsAt: start, endsAt: start + length } : null;
  }
  return null;
}

/** Up to `n` occurrences that end after `from`, in order. */
export function occurrencesFrom(w: MaintenanceWindow, from: number, n: number): Occurrence[] {
  const length = w.endsAt - w.startsAt;
  const out: Occurrence[] = [];
  if (length <= 0) return out;
  const first = DateTime.fromMillis(w.startsAt, { zone: w.timezone ?? 'UTC' });
  const period = w.repeatUnit && w.repeatInterval ? APPROX_MS[w.repeatUnit] * w.repeatInterval : Infinity;
  // From just before the estimate: a few occurrences that ended already are skipped.
  for (let k = Math.max(0, Math.floor((from - w.endsAt) / period) - 1); out.length < n; k++) {
    const start = startOf(w, first, k);
    if (start === null) break;
    if (start + length > from) out.push({ startsAt: start, endsAt: start + length });
  }
  return out;
}

/**
 * The occurrences that matter from a little before `t` onwards, and the span [from, until)
 * over which they answer "is one under way?" for any time: between calendar recomputations a
 * time costs a comparison or two.
 */
export interface Span {
  from: number;
  until: number;
  occurrences: Occurrence[];
}

export function spanAround(w: MaintenanceWindow, t: number): Span {
  const from = t - 60_000;
  const occurrences = occurrencesFrom(w, from, 4);
  // Any occurrence starting before the fourth's start is among the first three.
  const until = occurrences.length === 4 ? occurrences[3].startsAt : Infinity;
  return { from, until, occurrences: occurrences.slice(0, 3) };
}

export const underWay = (span: Span, t: number): boolean => span.occurrences.some((o) => o.startsAt <= t && t < o.endsAt);

/** A check as maintenance matches it: its tags and its group's. */
export interface MatchedCheck {
  tags: readonly string[];
  groupTags: readonly string[];
}

const matches = (wanted: readonly string[], c: MatchedCheck) => wanted.some((t) => c.tags.includes(t) || c.groupTags.includes(t));

/** Whether the windows under way pause a check's scheduled runs. */
export function pauses(active: readonly MaintenanceWindow[], c: MatchedCheck): boolean {
  return active.some((w) => w.pauseAllChecks || matches(w.tags, c));
}

/** Whether the windows under way silence a check's alerts. */
export function silences(active: readonly MaintenanceWindow[], c: MatchedCheck): boolean {
  return active.some((w) => w.silenceAllAlerts || matches(w.silenceAlertsTags, c));
}
