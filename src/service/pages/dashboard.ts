// A public dashboard: the checks its tags select, each with its state, its last 24 hours and 90
// days of uptime, and (if the owner enables them) the dashboard's incidents. Check names, group
// names and tags are shown; ids, targets and error text are not, unless the owner opts in to
// error messages.

import { stateOf, type BadgeState } from '../../domain/badge.js';
import {
  UPTIME_DAYS,
  dashboardShows,
  lastDays,
  meanUptime,
  percent,
  quantile,
  uptimeBars,
  worst,
  type DayTally,
  type ServiceState,
} from '../../domain/status-page.js';
import type { Deps } from '../deps.js';
import type { DashboardRow } from '../store/dashboards.js';
import { barsHtml, documentHtml, escapeHtml, stateHtml, timeHtml, timelineHtml, type Theme } from './html.js';

const DAY_MS = 86_400_000;

/** A check's state in the words of a page (inactive and not yet run count as operational). */
const PAGE_STATE: Record<BadgeState, ServiceState> = {
  passing: 'operational',
  degraded: 'degraded',
  failing: 'major-outage',
  inactive: 'operational',
  unknown: 'operational',
};
const CHECK_WORDS: Record<BadgeState, string> = {
  passing: 'Passing',
  degraded: 'Degraded',
  failing: 'Failing',
  inactive: 'Paused',
  unknown: 'No results yet',
};

export async function renderDashboard(deps: Deps, dashboard: DashboardRow, theme: Theme | null, now: number): Promise<string> {
  const c = dashboard.config as Record<string, unknown> & { tags: string[]; header: string };
  const account = dashboard.account_id;
  const days = lastDays(now);
  const rows = (await deps.store.checks.all(account)).filter((r) =>
    dashboardShows(c.tags ?? [], c.useTagsAndOperator === true, [...r.config.tags, ...deps.groups.tagsOf(r)]),
  );
  const ids = rows.map((r) => r.id);
  const [statuses, dayRows, recent] = await Promise.all([
    deps.store.statuses.list(account),
    deps.store.results.days(ids, days[0]),
    deps.store.results.recentFinal(ids, new Date(now - DAY_MS)),
  ]);
  const statusById = new Map(statuses.map((s) => [s.check_id, s]));
  const talliesOf = new Map<string, Map<string, DayTally>>();
  for (const d of dayRows) {
    if (!talliesOf.has(d.check_id)) talliesOf.set(d.check_id, new Map());
    talliesOf.get(d.check_id)!.set(d.day, d);
  }
  const recentOf = new Map<string, { failed: number; times: number[] }>();
  for (const r of recent) {
    const had = recentOf.get(r.check_id) ?? { failed: 0, times: [] };
    if (r.has_failures) had.failed++;
    had.times.push(r.response_time);
    recentOf.set(r.check_id, had);
  }

  let checks = rows.map((r) => {
    const check = deps.groups.effective(r);
    const s = statusById.get(r.id);
    const state = stateOf({ activated: check.activated, status: s ? { hasFailures: s.has_failures, isDegraded: s.is_degraded } : null });
    return { row: r, state, group: check.config.groupId ? deps.groups.get(account, Number(check.config.groupId))?.name : undefined };
  });
  if (c.sortByStatus) {
    const order: BadgeState[] = ['failing', 'degraded', 'passing', 'unknown', 'inactive'];
    checks = [...checks].sort((a, b) => order.indexOf(a.state) - order.indexOf(b.state));
  }
  const errors = new Map<string, string>();
  if (c.showErrorMessages === true)
    for (const x of checks.filter((x) => x.state === 'failing')) {
      const latest = await deps.store.results.latestOf(x.row.id);
      if (latest?.error) errors.set(x.row.id, latest.error);
    }

  const ms = (v: number | null) => (v === null ? '–' : `${Math.round(v)} ms`);
  const head =
    '<tr><th scope="col">Check</th><th scope="col">Status</th><th scope="col">24 h</th>' +
    (c.showP95 !== false ? '<th scope="col">p95</th>' : '') +
    (c.showP99 !== false ? '<th scope="col">p99</th>' : '') +
    `<th scope="col">Last ${UPTIME_DAYS} days</th></tr>`;
  const body = checks
    .map(({ row, state, group }) => {
      const r = recentOf.get(row.id);
      const bars = uptimeBars({
        days,
        now,
        since: row.created_at.getTime(),
        measured: true,
        tallies: talliesOf.get(row.id) ?? new Map(),
        incidents: [],
      });
      const tags = c.hideTags ? '' : row.config.tags.map((t) => `<span class="tag">${escapeHtml(t)}</span>`).join('');
      const error = errors.get(row.id);
      return (
        `<tr><th scope="row">${escapeHtml(row.name)}` +
        (group && c.showGroupNames !== false ? `<div class="muted">${escapeHtml(group)}</div>` : '') +
        (tags ? `<div>${tags}</div>` : '') +
        `</th><td>${stateHtml(PAGE_STATE[state], CHECK_WORDS[state])}` +
        (error ? `<div class="muted">${escapeHtml(error.slice(0, 300))}</div>` : '') +
        `</td><td>${r ? percent((r.times.length - r.failed) / r.times.length) : '–'}</td>` +
        (c.showP95 !== false ? `<td>${ms(quantile(r?.times ?? [], 0.95))}</td>` : '') +
        (c.showP99 !== false ? `<td>${ms(quantile(r?.times ?? [], 0.99))}</td>` : '') +
        `<td class="bars-cell">${barsHtml(bars, meanUptime(bars))}</td></tr>`
      );
    })
    .join('');

  const overall = worst(checks.map((x) => PAGE_STATE[x.state]));
  let html = `<section class="banner ${overall}" role="status"><h2>${overall === 'operational' ? 'All checks passing' : checks.some((x) => x.state === 'failing') ? 'Some checks are failing' : 'Some checks are degraded'}</h2></section>`;

  if (c.enableIncidents === true) html += await incidentsHtml(deps, dashboard, now);
  html +=
    '<section class="card" aria-labelledby="checks"><div class="head"><h2 id="checks">Checks</h2>' +
    `<span class="muted">${checks.length} ${checks.length === 1 ? 'check' : 'checks'}</span></div>` +
    (checks.length
      ? `<table><thead>${head}</thead><tbody>${body}</tbody></table>`
      : '<p class="muted" style="padding:0 1rem">No checks match this dashboard.</p>') +
    '</section>';

  return documentHtml({
    title: c.header,
    heading: c.header,
    hideHeading: c.showHeader === false,
    description: (c.description as string | null) ?? null,
    logo: c.logo as string | null,
    logoLink: c.link as string | null,
    favicon: c.favicon as string | null,
    theme: theme ?? 'auto',
    refreshSeconds: Number(c.refreshRate ?? 60),
    noindex: c.isPrivate === true,
    customCss: (c.customCSS as string | null) ?? null,
    body: html,
  });
}

const IMPACT_CLASS: Record<string, string> = { MAJOR: 'major', MINOR: 'minor', MAINTENANCE: 'maintenance' };

async function incidentsHtml(deps: Deps, dashboard: DashboardRow, now: number): Promise<string> {
  const incidents = await deps.store.incidents.onDashboard(Number(dashboard.id), new Date(now - UPTIME_DAYS * DAY_MS));
  const updates = await deps.store.incidents.updatesOf(incidents.map((i) => i.id));
  const shown = incidents.map((i) => {
    const own = updates.filter((u) => u.incident_id === i.id);
    const stopped = (i.stopped_at && i.stopped_at.getTime() <= now) || own[own.length - 1]?.status === 'RESOLVED';
    return { i, own, stopped };
  });
  const article = (x: (typeof shown)[number]) =>
    `<article class="incident ${x.stopped ? 'resolved' : (IMPACT_CLASS[x.i.impact] ?? 'major')}"><h3>${escapeHtml(x.i.name)}</h3>` +
    `<p class="muted">${x.i.impact.charAt(0) + x.i.impact.slice(1).toLowerCase()} · since ${timeHtml((x.i.started_at ?? x.i.created_at).getTime())}` +
    (x.stopped && x.i.stopped_at ? ` · until ${timeHtml(x.i.stopped_at.getTime())}` : '') +
    `</p>${timelineHtml(x.own.map((u) => ({ status: u.status, description: u.description, at: u.created_at.getTime() })))}</article>`;
  const open = shown.filter((x) => !x.stopped);
  const past = shown.filter((x) => x.stopped).slice(0, 10);
  return (
    (open.length
      ? `<section aria-labelledby="open-incidents"><h2 id="open-incidents">Open incidents</h2>${open.map(article).join('')}</section>`
      : '') +
    (past.length
      ? `<section aria-labelledby="past-incidents"><h2 id="past-incidents">Past incidents</h2>${past.map(article).join('')}</section>`
      : '')
  );
}
