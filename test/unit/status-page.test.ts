// What status pages decide: service states, uptime bars from results or from incidents, which
// maintenance a page shows, which checks a dashboard shows.

import { describe, it, expect } from 'vitest';
import {
  cardUptime,
  checksState,
  dashboardShows,
  lastDays,
  maintenanceServices,
  meanUptime,
  percent,
  quantile,
  uptimeBars,
  worst,
  type DayTally,
} from '../../src/domain/status-page.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');

describe('service state', () => {
  it('is an outage when every watching check fails, a partial one when some do', () => {
    expect(checksState(['failing', 'failing'])).toBe('major-outage');
    expect(checksState(['failing', 'passing'])).toBe('partial-outage');
    expect(checksState(['degraded', 'passing'])).toBe('degraded');
    expect(checksState(['passing', 'unknown', 'inactive'])).toBe('operational');
    // Checks without results say nothing: one failing among them is all that is known.
    expect(checksState(['failing', 'unknown'])).toBe('major-outage');
    expect(checksState([])).toBe('operational');
  });

  it('takes the worst of checks, incidents and maintenance', () => {
    expect(worst(['operational', 'maintenance'])).toBe('maintenance');
    expect(worst(['maintenance', 'degraded'])).toBe('degraded');
    expect(worst(['partial-outage', 'major-outage', 'degraded'])).toBe('major-outage');
    expect(worst([])).toBe('operational');
  });
});

describe('uptime bars', () => {
  const days = lastDays(NOW, 5);

  it('are the last days ending today, oldest first', () => {
    expect(days).toEqual(['2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23']);
    expect(lastDays(NOW)).toHaveLength(90);
  });

  it('take uptime from results where checks watch, and show days without runs as no data', () => {
    const tallies = new Map<string, DayTally>([
      ['2026-11-20', { runs: 1440, failures: 0, degraded: 0 }],
      ['2026-11-21', { runs: 1440, failures: 1, degraded: 0 }],
      ['2026-11-22', { runs: 1440, failures: 720, degraded: 0 }],
      ['2026-11-23', { runs: 720, failures: 0, degraded: 3 }],
    ]);
    const bars = uptimeBars({ days, now: NOW, since: 0, measured: true, tallies, incidents: [] });
    expect(bars.map((b) => b.level)).toEqual(['none', 'ok', 'minor', 'major', 'minor']);
    expect(bars[0].uptime).toBeNull();
    expect(bars[2].uptime).toBeCloseTo(1439 / 1440, 10);
    expect(bars[3].uptime).toBe(0.5);
    // The mean of the measured days only.
    expect(meanUptime(bars)).toBeCloseTo((1 + 1439 / 1440 + 0.5 + 1) / 4, 10);
  });

  it('take uptime from incidents where no check watches: major time is down, overlaps counted once', () => {
    const bars = uptimeBars({
      days,
      now: NOW,
      since: 0,
      measured: false,
      tallies: new Map(),
      incidents: [
        // 6 h and an overlapping 6 h on the 21st: 9 h down in all.
        { severity: 'CRITICAL', startedAt: Date.parse('2026-11-21T00:00:00Z'), resolvedAt: Date.parse('2026-11-21T06:00:00Z') },
        { severity: 'MAJOR', startedAt: Date.parse('2026-11-21T03:00:00Z'), resolvedAt: Date.parse('2026-11-21T09:00:00Z') },
        // A minor incident is not downtime, but marks its day.
        { severity: 'MINOR', startedAt: Date.parse('2026-11-22T10:00:00Z'), resolvedAt: Date.parse('2026-11-22T11:00:00Z') },
        // Still open: down from 06:00 until now (12:00) today.
        { severity: 'CRITICAL', startedAt: Date.parse('2026-11-23T06:00:00Z'), resolvedAt: null },
      ],
    });
    expect(bars.map((b) => b.level)).toEqual(['ok', 'ok', 'major', 'minor', 'major']);
    expect(bars[2].uptime).toBeCloseTo(1 - 9 / 24, 10);
    expect(bars[2].incidents).toBe(2);
    expect(bars[3].uptime).toBe(1);
    // Today counts only its hours so far.
    expect(bars[4].uptime).toBeCloseTo(1 - 6 / 12, 10);
  });

  it('colour a measured day by its incidents too, and show nothing before the service existed', () => {
    const tallies = new Map([['2026-11-22', { runs: 100, failures: 0, degraded: 0 }]]);
    const bars = uptimeBars({
      days,
      now: NOW,
      since: Date.parse('2026-11-22T08:00:00Z'),
      measured: true,
      tallies,
      incidents: [{ severity: 'MAJOR', startedAt: Date.parse('2026-11-22T09:00:00Z'), resolvedAt: Date.parse('2026-11-22T09:30:00Z') }],
    });
    expect(bars.map((b) => b.level)).toEqual(['none', 'none', 'none', 'major', 'none']);
    expect(bars[3]).toMatchObject({ uptime: 1, incidents: 1 });
  });

  it('never round a bad day up to 100%', () => {
    expect(percent(0.99999)).toBe('99.99%');
    expect(percent(1)).toBe('100.00%');
    expect(percent(0.5)).toBe('50.00%');
  });

  it("give a card the mean of its services' uptime", () => {
    expect(cardUptime([1, 0.98, null])).toBeCloseTo(0.99, 10);
    expect(cardUptime([null])).toBeNull();
  });
});

describe('maintenance on a page', () => {
  const services = ['a', 'b', 'c'];
  it('shows only windows made visible, on this page, against the services they affect', () => {
    expect(maintenanceServices(null, 'p1', services)).toEqual([]);
    expect(maintenanceServices({ enabled: false, affectAllServices: true }, 'p1', services)).toEqual([]);
    expect(maintenanceServices({ enabled: true, affectAllServices: true }, 'p1', services)).toEqual(services);
    expect(maintenanceServices({ enabled: true, affectAllServices: true, statusPageIds: ['p2'] }, 'p1', services)).toEqual([]);
    expect(maintenanceServices({ enabled: true, serviceIds: ['b', 'z'], statusPageIds: ['p1'] }, 'p1', services)).toEqual(['b']);
    expect(maintenanceServices({ enabled: true, serviceIds: ['z'] }, 'p1', services)).toEqual([]);
  });
});

describe('dashboards', () => {
  it('show every check without tags, else those with any tag (or every tag with AND)', () => {
    expect(dashboardShows([], false, [])).toBe(true);
    expect(dashboardShows(['shop', 'eu'], false, ['eu'])).toBe(true);
    expect(dashboardShows(['shop', 'eu'], true, ['eu'])).toBe(false);
    expect(dashboardShows(['shop', 'eu'], true, ['eu', 'shop', 'x'])).toBe(true);
    expect(dashboardShows(['shop'], false, ['web'])).toBe(false);
  });

  it('give response-time quantiles by nearest rank', () => {
    const times = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile(times, 0.95)).toBe(95);
    expect(quantile(times, 0.99)).toBe(99);
    expect(quantile([7], 0.99)).toBe(7);
    expect(quantile([], 0.5)).toBeNull();
  });
});
