// A status page as its visitors see it: gathered from the store in a handful of queries, decided
// by the pure rules in domain/status-page.ts, drawn by html.ts. What is shown is what the owner
// wrote (names, incident text) and what the checks watching a service measured (state, uptime):
// never a check's id, target or error.

import { incidentSpan } from '../../domain/incidents.js';
import { occurrenceAt, occurrencesFrom } from '../../domain/maintenance.js';
import { stateOf } from '../../domain/badge.js';
import {
  SEVERITY_STATE,
  STATE_LABELS,
  UPTIME_DAYS,
  cardUptime,
  checksState,
  lastDays,
  maintenanceServices,
  meanUptime,
  uptimeBars,
  worst,
  type DayTally,
  type IncidentSpan,
  type ServiceState,
  type Visibility,
} from '../../domain/status-page.js';
import type { Deps } from '../deps.js';
import type { StatusPageRow } from '../store/status-pages.js';
import type { ServiceIncidentUpdateRow } from '../store/service-incidents.js';
import { barsHtml, documentHtml, durationText, escapeHtml, stateHtml, timeHtml, timelineHtml, type Theme } from './html.js';

const DAY_MS = 86_400_000;
/** How far ahead scheduled maintenance is announced. */
const MAINTENANCE_AHEAD_MS = 14 * DAY_MS;
const PAST_INCIDENTS_SHOWN = 20;

interface ShownIncident {
  id: string;
  name: string;
  severity: string;
  serviceIds: string[];
  serviceNames: string[];
  span: IncidentSpan;
  updates: ServiceIncidentUpdateRow[];
}

const summed = (into: Map<string, DayTally>, day: string, t: DayTally) => {
  const had = into.get(day) ?? { runs: 0, failures: 0, degraded: 0 };
  into.set(day, { runs: had.runs + t.runs, failures: had.failures + t.failures, degraded: had.degraded + t.degraded });
};

export async function renderStatusPage(deps: Deps, page: StatusPageRow, theme: Theme | null, now: number): Promise<string> {
  const account = page.account_id;
  const serviceIds = [...new Set(page.config.cards.flatMap((c) => c.serviceIds))];
  const days = lastDays(now);
  const [services, watchers, statuses, incidentRows, windows] = await Promise.all([
    deps.store.statusPageServices.list(account),
    deps.store.checks.watchingServices(account),
    deps.store.statuses.list(account),
    deps.store.serviceIncidents.shown(account, new Date(Date.parse(`${days[0]}T00:00:00Z`))),
    deps.store.maintenanceWindows.list(account),
  ]);
  const serviceById = new Map(services.filter((s) => serviceIds.includes(s.id)).map((s) => [s.id, s]));

  // The checks watching each service, as they run (a group may deactivate them).
  const checksOf = new Map<string, string[]>();
  const checkStates = new Map<string, ServiceState>();
  const statusById = new Map(statuses.map((s) => [s.check_id, s]));
  const watching: string[] = [];
  const watchersOf = new Map<string, ReturnType<typeof stateOf>[]>();
  for (const row of watchers) {
    const serviceId = row.config.triggerIncident?.serviceId as string;
    if (!serviceById.has(serviceId)) continue;
    const check = deps.groups.effective(row);
    if (!check.activated) continue;
    const s = statusById.get(row.id);
    watching.push(row.id);
    checksOf.set(serviceId, [...(checksOf.get(serviceId) ?? []), row.id]);
    watchersOf.set(serviceId, [
      ...(watchersOf.get(serviceId) ?? []),
      stateOf({ activated: true, status: s ? { hasFailures: s.has_failures, isDegraded: s.is_degraded } : null }),
    ]);
  }
  for (const [id, states] of watchersOf) checkStates.set(id, checksState(states));
  const tallies = new Map<string, Map<string, DayTally>>();
  const serviceOfCheck = new Map([...checksOf].flatMap(([service, ids]) => ids.map((id) => [id, service] as const)));
  for (const d of await deps.store.results.days(watching, days[0])) {
    const service = serviceOfCheck.get(d.check_id)!;
    if (!tallies.has(service)) tallies.set(service, new Map());
    summed(tallies.get(service)!, d.day, d);
  }

  // Incidents on this page's services, with their timelines.
  const mine = incidentRows.filter((i) => i.service_ids.some((id) => serviceById.has(id)));
  const updates = await deps.store.serviceIncidents.updates(mine.map((i) => i.id));
  const incidents: ShownIncident[] = [];
  for (const i of mine) {
    const own = updates.filter((u) => u.incident_id === i.id);
    const span = incidentSpan(own.map((u) => ({ status: u.status, at: u.public_incident_update_date.getTime() })));
    if (!span) continue;
    incidents.push({
      id: i.id,
      name: i.name,
      severity: i.severity,
      serviceIds: i.service_ids,
      serviceNames: i.service_ids.flatMap((id) => (serviceById.has(id) ? [serviceById.get(id)!.name] : [])),
      span: { severity: i.severity, ...span },
      updates: own,
    });
  }
  const open = incidents.filter((i) => i.span.resolvedAt === null);

  // Maintenance shown on this page: under way now, or starting within the next two weeks.
  const inMaintenance = new Set<string>();
  const maintenance: { name: string; description: string | null; startsAt: number; endsAt: number; now: boolean; services: string[] }[] =
    [];
  for (const w of windows) {
    const affected = maintenanceServices(w.config.statusPageVisibility as Visibility | null, page.id, [...serviceById.keys()]);
    if (!affected.length) continue;
    const current = occurrenceAt(w.config, now);
    if (current) for (const id of affected) inMaintenance.add(id);
    for (const o of occurrencesFrom(w.config, now, 3)) {
      if (o.startsAt > now + MAINTENANCE_AHEAD_MS) break;
      const showServices = (w.config.statusPageVisibility as Visibility).showAffectedServices !== false;
      maintenance.push({
        name: w.config.name,
        description: w.config.description,
        ...o,
        now: o.startsAt <= now,
        services: showServices ? affected.map((id) => serviceById.get(id)!.name) : [],
      });
    }
  }
  maintenance.sort((a, b) => a.startsAt - b.startsAt);

  const stateOfService = (id: string): ServiceState =>
    worst([
      checkStates.get(id) ?? 'operational',
      ...open.filter((i) => i.serviceIds.includes(id)).map((i) => SEVERITY_STATE[i.severity] ?? 'degraded'),
      ...(inMaintenance.has(id) ? (['maintenance'] as const) : []),
    ]);

  let body = '';
  const all: ServiceState[] = [];
  let cards = '';
  for (const card of page.config.cards) {
    const rows: string[] = [];
    const uptimes: (number | null)[] = [];
    for (const id of card.serviceIds) {
      const service = serviceById.get(id);
      if (!service) continue;
      const state = stateOfService(id);
      all.push(state);
      const bars = uptimeBars({
        days,
        now,
        since: service.created_at.getTime(),
        measured: checksOf.has(id),
        tallies: tallies.get(id) ?? new Map(),
        incidents: incidents.filter((i) => i.serviceIds.includes(id)).map((i) => i.span),
      });
      const uptime = meanUptime(bars);
      uptimes.push(uptime);
      rows.push(`<li><div class="row"><h3>${escapeHtml(service.name)}</h3>${stateHtml(state)}</div>${barsHtml(bars, uptime)}</li>`);
    }
    const uptime = cardUptime(uptimes);
    cards +=
      `<section class="card" aria-label="${escapeHtml(card.name)}"><div class="head"><h2>${escapeHtml(card.name)}</h2>` +
      (uptime === null ? '' : `<span class="muted">${(Math.floor(uptime * 10_000) / 100).toFixed(2)}% uptime, ${UPTIME_DAYS} days</span>`) +
      `</div><ul class="services">${rows.join('')}</ul></section>`;
  }
  const overall = worst(all);
  body += `<section class="banner ${overall}" role="status"><h2>${overall === 'operational' ? 'All systems operational' : STATE_LABELS[overall]}</h2></section>`;

  if (open.length)
    body +=
      '<section aria-labelledby="open-incidents"><h2 id="open-incidents">Open incidents</h2>' +
      open.map((i) => incidentHtml(i, now)).join('') +
      '</section>';
  if (maintenance.length)
    body +=
      '<section aria-labelledby="maintenance"><h2 id="maintenance">Maintenance</h2>' +
      maintenance
        .map(
          (m) =>
            `<article class="incident maintenance"><h3>${escapeHtml(m.name)}</h3><p><strong>${m.now ? 'In progress' : 'Scheduled'}</strong>: ` +
            `${timeHtml(m.startsAt)} – ${timeHtml(m.endsAt)}</p>` +
            (m.description ? `<p>${escapeHtml(m.description)}</p>` : '') +
            (m.services.length ? `<p class="muted">Affects ${escapeHtml(m.services.join(', '))}</p>` : '') +
            '</article>',
        )
        .join('') +
      '</section>';
  body += `<section aria-labelledby="services"><h2 id="services" class="sr">Services</h2>${cards}</section>`;
  const past = incidents.filter((i) => i.span.resolvedAt !== null).slice(0, PAST_INCIDENTS_SHOWN);
  body +=
    '<section aria-labelledby="past-incidents"><h2 id="past-incidents">Past incidents</h2>' +
    (past.length
      ? past.map((i) => `<details class="incident resolved"><summary>${incidentSummary(i)}</summary>${timeline(i)}</details>`).join('')
      : `<p class="muted">No incidents in the last ${UPTIME_DAYS} days.</p>`) +
    '</section>';

  const c = page.config;
  return documentHtml({
    title: `${c.name} status`,
    heading: c.name,
    description: (c.description as string | null) ?? null,
    logo: c.logo as string | null,
    logoDark: c.logoDark as string | null,
    logoLink: c.redirectTo as string | null,
    favicon: c.favicon as string | null,
    theme: theme ?? ((String(c.defaultTheme ?? 'AUTO').toLowerCase() as Theme) || 'auto'),
    themeColors: c.themeColors as { light?: unknown; dark?: unknown } | null,
    noindex: c.isPrivate === true,
    body,
  });
}

const SEVERITY_WORDS: Record<string, string> = { CRITICAL: 'Critical', MAJOR: 'Major', MEDIUM: 'Medium', MINOR: 'Minor' };

const timeline = (i: ShownIncident) =>
  timelineHtml(i.updates.map((u) => ({ status: u.status, description: u.description, at: u.public_incident_update_date.getTime() })));

function incidentSummary(i: ShownIncident): string {
  const lasted = i.span.resolvedAt === null ? '' : `, lasted ${durationText(Math.round((i.span.resolvedAt - i.span.startedAt) / 1000))}`;
  return `<strong>${escapeHtml(i.name)}</strong> <span class="muted">${timeHtml(i.span.startedAt)}${lasted}</span>`;
}

function incidentHtml(i: ShownIncident, now: number): string {
  return (
    `<article class="incident ${i.severity.toLowerCase()}"><h3>${escapeHtml(i.name)}</h3>` +
    `<p class="muted">${SEVERITY_WORDS[i.severity] ?? i.severity} · ${escapeHtml(i.serviceNames.join(', '))} · ` +
    `for ${durationText(Math.max(0, Math.round((now - i.span.startedAt) / 1000)))}</p>${timeline(i)}</article>`
  );
}
