// What a status page or dashboard shows: each service's state now, its days of uptime, and
// which incidents are open. Pure: the route gathers rows, this decides, the template draws.

import type { BadgeState } from './badge.js';

export const UPTIME_DAYS = 90;
const DAY_MS = 86_400_000;

/** Worst last: the order states are compared in. */
export const SERVICE_STATES = ['operational', 'maintenance', 'degraded', 'partial-outage', 'major-outage'] as const;
export type ServiceState = (typeof SERVICE_STATES)[number];

export const STATE_LABELS: Record<ServiceState, string> = {
  operational: 'Operational',
  maintenance: 'Under maintenance',
  degraded: 'Degraded performance',
  'partial-outage': 'Partial outage',
  'major-outage': 'Major outage',
};

export const worst = (states: readonly ServiceState[]): ServiceState =>
  states.reduce<ServiceState>((w, s) => (SERVICE_STATES.indexOf(s) > SERVICE_STATES.indexOf(w) ? s : w), 'operational');

/** How an open incident of each severity colours its services (as status pages conventionally do). */
export const SEVERITY_STATE: Record<string, ServiceState> = {
  CRITICAL: 'major-outage',
  MAJOR: 'partial-outage',
  MEDIUM: 'degraded',
  MINOR: 'degraded',
};

/** The state the checks that watch a service give it: all failing is an outage, some a partial one. */
export function checksState(states: readonly BadgeState[]): ServiceState {
  const live = states.filter((s) => s === 'passing' || s === 'degraded' || s === 'failing');
  const failing = live.filter((s) => s === 'failing').length;
  if (failing && failing === live.length) return 'major-outage';
  if (failing) return 'partial-outage';
  return live.includes('degraded') ? 'degraded' : 'operational';
}

/** A day's FINAL results of the checks watching something, summed. */
export interface DayTally {
  runs: number;
  failures: number;
  degraded: number;
}

/** An incident as it touches uptime: when it ran and how bad it was. */
export interface IncidentSpan {
  severity: string;
  startedAt: number;
  /** null while open. */
  resolvedAt: number | null;
}

export type BarLevel = 'ok' | 'minor' | 'major' | 'none';

export interface UptimeBar {
  /** YYYY-MM-DD, UTC. */
  day: string;
  /** 0..1; null: nothing was measured that day. */
  uptime: number | null;
  level: BarLevel;
  incidents: number;
}

const dayOf = (t: number) => new Date(t).toISOString().slice(0, 10);

/** The `n` UTC days ending with today, oldest first. */
export function lastDays(now: number, n = UPTIME_DAYS): string[] {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return Array.from({ length: n }, (_, i) => dayOf(today - (n - 1 - i) * DAY_MS));
}

const LEVELS: BarLevel[] = ['none', 'ok', 'minor', 'major'];
const worse = (a: BarLevel, b: BarLevel) => (LEVELS.indexOf(b) > LEVELS.indexOf(a) ? b : a);

/**
 * One bar per day. Where checks watch the thing, their results give the uptime (and a day with
 * no runs has none); where none do, incidents do: CRITICAL and MAJOR time counts as down. An
 * incident on a day colours it at least as its severity does. Days before `since` show nothing.
 */
export function uptimeBars(o: {
  days: readonly string[];
  now: number;
  since: number;
  /** Whether checks watch it: then results decide uptime. */
  measured: boolean;
  tallies: ReadonlyMap<string, DayTally>;
  incidents: readonly IncidentSpan[];
}): UptimeBar[] {
  const firstDay = dayOf(o.since);
  return o.days.map((day) => {
    if (day < firstDay) return { day, uptime: null, level: 'none', incidents: 0 };
    const start = Date.parse(`${day}T00:00:00Z`);
    const end = Math.min(start + DAY_MS, o.now);
    const touching = o.incidents.filter((i) => i.startedAt < start + DAY_MS && (i.resolvedAt ?? o.now) > start);
    let uptime: number | null = null;
    let level: BarLevel = 'none';
    if (o.measured) {
      const t = o.tallies.get(day);
      if (t && t.runs > 0) {
        uptime = (t.runs - t.failures) / t.runs;
        level = t.failures === 0 ? (t.degraded ? 'minor' : 'ok') : uptime >= 0.99 ? 'minor' : 'major';
      }
    } else if (end > start) {
      const down = downtime(
        touching.filter((i) => SEVERITY_STATE[i.severity] === 'major-outage' || SEVERITY_STATE[i.severity] === 'partial-outage'),
        start,
        end,
        o.now,
      );
      uptime = 1 - down / (end - start);
      level = 'ok';
    }
    for (const i of touching) level = worse(level, SEVERITY_STATE[i.severity] === 'degraded' ? 'minor' : 'major');
    return { day, uptime, level, incidents: touching.length };
  });
}

/** Milliseconds within [start, end) covered by any of the incidents. */
function downtime(incidents: readonly IncidentSpan[], start: number, end: number, now: number): number {
  const spans = incidents
    .map((i) => [Math.max(start, i.startedAt), Math.min(end, i.resolvedAt ?? now)] as const)
    .filter(([a, b]) => b > a)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let reach = start;
  for (const [a, b] of spans) {
    if (b <= reach) continue;
    total += b - Math.max(a, reach);
    reach = b;
  }
  return total;
}

/** The uptime over the bars that measured something: the mean of their days; null if none did. */
export function meanUptime(bars: readonly UptimeBar[]): number | null {
  const measured = bars.filter((b) => b.uptime !== null);
  return measured.length ? measured.reduce((s, b) => s + b.uptime!, 0) / measured.length : null;
}

/** A card's uptime: the mean of its services' (status pages conventionally show it so). */
export function cardUptime(services: readonly (number | null)[]): number | null {
  const known = services.filter((u): u is number => u !== null);
  return known.length ? known.reduce((s, u) => s + u, 0) / known.length : null;
}

/** "99.95%": two decimals, never rounding a bad day up to 100%. */
export function percent(uptime: number): string {
  const floored = Math.floor(uptime * 10_000) / 100;
  return `${floored.toFixed(2)}%`;
}

/** The q-quantile (0..1) of the values, nearest rank; null when there are none. */
export function quantile(values: readonly number[], q: number): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** What a status page's visitors are told of a window: shown on this page, touching these services. */
export interface Visibility {
  enabled?: boolean;
  affectAllServices?: boolean;
  statusPageIds?: string[] | null;
  serviceIds?: string[] | null;
  showAffectedServices?: boolean;
}

/** The page's services a maintenance window is shown against; empty: not shown on this page. */
export function maintenanceServices(v: Visibility | null, pageId: string, pageServiceIds: readonly string[]): string[] {
  if (!v?.enabled) return [];
  if (v.statusPageIds?.length && !v.statusPageIds.includes(pageId)) return [];
  if (v.affectAllServices) return [...pageServiceIds];
  return pageServiceIds.filter((id) => v.serviceIds?.includes(id));
}

/** Which checks a dashboard shows: all with no tags; else those with any (or, with AND, every) tag. */
export function dashboardShows(tags: readonly string[], all: boolean, checkTags: readonly string[]): boolean {
  if (!tags.length) return true;
  return all ? tags.every((t) => checkTags.includes(t)) : tags.some((t) => checkTags.includes(t));
}
