import { describe, it, expect } from 'vitest';
import { DateTime } from 'luxon';
import {
  occurrenceAt,
  occurrencesFrom,
  pauses,
  silences,
  spanAround,
  underWay,
  type MaintenanceWindow,
} from '../../src/domain/maintenance.js';

const at = (iso: string, zone = 'UTC') => DateTime.fromISO(iso, { zone }).toMillis();
const local = (t: number, zone: string) => DateTime.fromMillis(t, { zone }).toFormat("yyyy-MM-dd'T'HH:mm");
const window = (over: Partial<MaintenanceWindow>): MaintenanceWindow => ({
  startsAt: at('2026-01-05T02:00'),
  endsAt: at('2026-01-05T04:00'),
  repeatUnit: null,
  repeatInterval: null,
  repeatEndsAt: null,
  timezone: null,
  tags: [],
  pauseAllChecks: false,
  silenceAllAlerts: false,
  silenceAlertsTags: [],
  ...over,
});

describe('maintenance window occurrences', () => {
  it('a one-off window is under way from its start up to (not including) its end', () => {
    const w = window({});
    expect(occurrenceAt(w, at('2026-01-05T01:59'))).toBeNull();
    expect(occurrenceAt(w, at('2026-01-05T02:00'))).toEqual({ startsAt: w.startsAt, endsAt: w.endsAt });
    expect(occurrenceAt(w, at('2026-01-05T03:59'))).not.toBeNull();
    expect(occurrenceAt(w, at('2026-01-05T04:00'))).toBeNull();
    expect(occurrenceAt(w, at('2026-01-06T03:00'))).toBeNull();
  });

  it('repeats every n days or weeks, up to repeatEndsAt (the last date one may start, inclusive)', () => {
    const w = window({ repeatUnit: 'DAY', repeatInterval: 2, repeatEndsAt: '2026-01-09' });
    expect(occurrenceAt(w, at('2026-01-06T03:00'))).toBeNull();
    expect(occurrenceAt(w, at('2026-01-07T03:00'))).toEqual({ startsAt: at('2026-01-07T02:00'), endsAt: at('2026-01-07T04:00') });
    expect(occurrenceAt(w, at('2026-01-09T02:30'))).not.toBeNull();
    expect(occurrenceAt(w, at('2026-01-11T02:30'))).toBeNull();
    const weekly = window({ repeatUnit: 'WEEK', repeatInterval: 1 });
    expect(occurrenceAt(weekly, at('2026-03-02T03:00'))).toEqual({ startsAt: at('2026-03-02T02:00'), endsAt: at('2026-03-02T04:00') });
    expect(occurrenceAt(weekly, at('2026-03-03T03:00'))).toBeNull();
  });

  it('keeps local wall-clock time across daylight-saving changes', () => {
    const zone = 'Europe/Berlin';
    const w = window({
      startsAt: at('2026-03-20T01:00', zone),
      endsAt: at('2026-03-20T05:00', zone),
      repeatUnit: 'DAY',
      repeatInterval: 1,
      timezone: zone,
    });
    // Clocks go forward on 29 March: still 01:00 local, one hour less of UTC between starts.
    const [before, after] = occurrencesFrom(w, at('2026-03-28T12:00', zone), 2);
    expect(local(before.startsAt, zone)).toBe('2026-03-29T01:00');
    expect(local(after.startsAt, zone)).toBe('2026-03-30T01:00');
    expect(after.startsAt - before.startsAt).toBe(23 * 3600_000);
    expect(occurrenceAt(w, at('2026-03-30T04:30', zone))).toEqual(after);
    // And back on 25 October.
    const [o1, o2] = occurrencesFrom(w, at('2026-10-24T12:00', zone), 2);
    expect(o2.startsAt - o1.startsAt).toBe(25 * 3600_000);
    expect(local(o2.startsAt, zone)).toBe('2026-10-26T01:00');
  });

  it('moves a start in the spring-forward gap forward, and takes the first of a doubled hour', () => {
    const zone = 'America/New_York';
    const w = window({
      startsAt: at('2026-03-01T02:30', zone),
      endsAt: at('2026-03-01T03:00', zone),
      repeatUnit: 'WEEK',
      repeatInterval: 1,
      timezone: zone,
    });
    // 8 March 2026, 02:30 does not exist in New York.
    const [gap] = occurrencesFrom(w, at('2026-03-07T12:00', zone), 1);
    expect(local(gap.startsAt, zone)).toBe('2026-03-08T03:30');
    const fall = window({
      startsAt: at('2026-10-25T01:30', zone),
      endsAt: at('2026-10-25T01:45', zone),
      repeatUnit: 'WEEK',
      repeatInterval: 1,
      timezone: zone,
    });
    // 1 November 2026, 01:30 happens twice: the first one (still daylight time, UTC-4).
    const [twice] = occurrencesFrom(fall, at('2026-10-31T12:00', zone), 1);
    expect(new Date(twice.startsAt).toISOString()).toBe('2026-11-01T05:30:00.000Z');
  });

  it('repeats monthly on the 31st on each month’s last day when it is shorter', () => {
    const w = window({ startsAt: at('2026-01-31T22:00'), endsAt: at('2026-01-31T23:00'), repeatUnit: 'MONTH', repeatInterval: 1 });
    expect(occurrencesFrom(w, at('2026-02-01T00:00'), 4).map((o) => local(o.startsAt, 'UTC'))).toEqual([
      '2026-02-28T22:00',
      '2026-03-31T22:00',
      '2026-04-30T22:00',
      '2026-05-31T22:00',
    ]);
    expect(occurrenceAt(w, at('2028-02-29T22:30'))).toEqual({ startsAt: at('2028-02-29T22:00'), endsAt: at('2028-02-29T23:00') });
    expect(occurrenceAt(w, at('2026-03-30T22:30'))).toBeNull();
  });

  it('finds the occurrence under way years later without walking every one', () => {
    const w = window({ repeatUnit: 'DAY', repeatInterval: 1, timezone: 'Asia/Kolkata' });
    const t = at('2036-07-14T03:15');
    expect(occurrenceAt(w, t)).toEqual({ startsAt: at('2036-07-14T02:00'), endsAt: at('2036-07-14T04:00') });
  });
});

describe('what maintenance does to a check', () => {
  const c = { tags: ['checkout'], groupTags: ['shop'] };
  it('pauses checks by their tags or their group’s, or all of them', () => {
    expect(pauses([window({ tags: ['checkout'] })], c)).toBe(true);
    expect(pauses([window({ tags: ['shop'] })], c)).toBe(true);
    expect(pauses([window({ tags: ['search'] })], c)).toBe(false);
    expect(pauses([window({ pauseAllChecks: true })], c)).toBe(true);
    expect(pauses([], c)).toBe(false);
  });
  it('silences alerts by silenceAlertsTags or silenceAllAlerts, not by the pause tags', () => {
    expect(silences([window({ tags: ['checkout'] })], c)).toBe(false);
    expect(silences([window({ silenceAlertsTags: ['shop'] })], c)).toBe(true);
    expect(silences([window({ silenceAllAlerts: true })], c)).toBe(true);
  });
});

describe('a window’s span of occurrences', () => {
  it('answers like occurrenceAt for every minute it covers, and says where it stops', () => {
    const w = window({
      startsAt: at('2026-01-31T22:00', 'Europe/Berlin'),
      endsAt: at('2026-01-31T23:30', 'Europe/Berlin'),
      repeatUnit: 'MONTH',
      repeatInterval: 1,
      timezone: 'Europe/Berlin',
    });
    const t0 = at('2026-03-30T12:00');
    const span = spanAround(w, t0);
    expect(span.until).toBeGreaterThan(t0);
    for (let t = t0; t < Math.min(span.until, t0 + 200 * 86_400_000); t += 15 * 60_000)
      expect(underWay(span, t)).toBe(occurrenceAt(w, t) !== null);
  });
});
