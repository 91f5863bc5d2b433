// The HTML every served page shares: the frame, the style sheet (light and dark), uptime bars,
// incident timelines. Server-rendered and without scripts, so a page reads the same with
// JavaScript off, in a screen reader, and on a wall screen that only reloads.

import { STATE_LABELS, percent, type ServiceState, type UptimeBar } from '../../domain/status-page.js';

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Only http(s) links make it into a page: never javascript: or data: from a stored setting. */
export const safeUrl = (u: unknown): string | null => (typeof u === 'string' && /^https?:\/\//i.test(u) ? u : null);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** "23 Nov 2026" from YYYY-MM-DD. */
export const dayText = (day: string) => `${Number(day.slice(8, 10))} ${MONTHS[Number(day.slice(5, 7)) - 1]} ${day.slice(0, 4)}`;
/** A time as people read it, in UTC (a page without scripts cannot know the reader's zone). */
export function timeHtml(t: number): string {
  const iso = new Date(t).toISOString();
  return `<time datetime="${iso}">${dayText(iso.slice(0, 10))} ${iso.slice(11, 16)} UTC</time>`;
}

/** "1 h 5 min", "3 min", "40 s". */
export function durationText(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const m = Math.round(seconds / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h${m % 60 ? ` ${m % 60} min` : ''}`;
  return `${Math.floor(h / 24)} d${h % 24 ? ` ${h % 24} h` : ''}`;
}

export const stateHtml = (s: ServiceState, label = STATE_LABELS[s]) => `<span class="state ${s}">${escapeHtml(label)}</span>`;

const BAR_WORDS = { ok: 'no downtime', minor: 'some failures', major: 'downtime', none: 'no data' } as const;

/**
 * Days of uptime as a strip of bars. For screen readers the strip is one image with a summary;
 * each bar's title gives its day to a pointer.
 */
export function barsHtml(bars: readonly UptimeBar[], uptime: number | null): string {
  const bad = bars.filter((b) => b.level === 'major' || b.level === 'minor').length;
  const summary =
    `Uptime over the last ${bars.length} days: ${uptime === null ? 'no data' : percent(uptime)}` +
    (bad ? `; ${bad} ${bad === 1 ? 'day' : 'days'} with failures or incidents` : '');
  let out = `<div class="bars" role="img" aria-label="${summary}">`;
  for (const b of bars) {
    const detail = b.uptime === null ? BAR_WORDS.none : `${percent(b.uptime)} uptime`;
    const incidents = b.incidents ? `, ${b.incidents} incident${b.incidents > 1 ? 's' : ''}` : '';
    out += `<i class="${b.level}" title="${dayText(b.day)}: ${detail}${incidents}"></i>`;
  }
  return (
    out +
    `</div><div class="axis" aria-hidden="true"><span>${bars.length} days ago</span>` +
    `<span>${uptime === null ? '' : `${percent(uptime)} uptime`}</span><span>Today</span></div>`
  );
}

export interface TimelineItem {
  status: string;
  description: string;
  at: number;
}

const titleCase = (s: string) => s.charAt(0) + s.slice(1).toLowerCase();

/** An incident's updates, newest first, as status pages show them. */
export function timelineHtml(items: readonly TimelineItem[]): string {
  const sorted = [...items].sort((a, b) => b.at - a.at);
  return (
    '<ol class="timeline" reversed>' +
    sorted
      .map(
        (u) =>
          `<li><strong class="update ${u.status.toLowerCase()}">${escapeHtml(titleCase(u.status))}</strong> ` +
          `<span class="muted">${timeHtml(u.at)}</span><p>${escapeHtml(u.description)}</p></li>`,
      )
      .join('') +
    '</ol>'
  );
}

/** Status-page theme colours (as the API takes them) and the style variables they set. */
const THEME_VARIABLES: Record<string, string> = {
  bodyBackgroundColor: '--bg',
  headerBackgroundColor: '--header-bg',
  headerFontColor: '--header-fg',
  titleFontColor: '--title',
  bodyFontColor: '--fg',
  bodyFontColorMuted: '--muted',
  navigationFontColor: '--nav',
  linkFontColor: '--link',
  cardBackgroundColor: '--card',
  borderColor: '--border',
  primaryButtonBackgroundColor: '--button-bg',
  primaryButtonFontColor: '--button-fg',
};
const COLOR = /^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$/;
const declarations = (colors: unknown) =>
  Object.entries((colors ?? {}) as Record<string, unknown>)
    .filter(([k, v]) => THEME_VARIABLES[k] && typeof v === 'string' && COLOR.test(v))
    .map(([k, v]) => `${THEME_VARIABLES[k]}:${v as string}`)
    .join(';');

const LIGHT =
  '--bg:#f6f8fa;--header-bg:#fff;--header-fg:#1f2328;--title:#1f2328;--fg:#1f2328;--muted:#59636e;--nav:#1f2328;--link:#0757ba;' +
  '--card:#fff;--border:#d1d9e0;--button-bg:#1f883d;--button-fg:#fff;--ok:#1a7f37;--minor:#9a6700;--major:#cf222e;--maint:#0969da;--none:#d1d9e0;--banner-fg:#fff';
const DARK =
  '--bg:#0d1117;--header-bg:#151b23;--header-fg:#f0f6fc;--title:#f0f6fc;--fg:#f0f6fc;--muted:#9198a1;--nav:#f0f6fc;--link:#4493f8;' +
  '--card:#151b23;--border:#3d444d;--button-bg:#238636;--button-fg:#fff;--ok:#3fb950;--minor:#d29922;--major:#f85149;--maint:#4493f8;--none:#3d444d;--banner-fg:#0d1117';

const CSS = `*{box-sizing:border-box}
html{color-scheme:light dark}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--fg)}
a{color:var(--link)}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--card);padding:.5rem;z-index:1}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
header.top{background:var(--header-bg);color:var(--header-fg);border-bottom:1px solid var(--border)}
header.top>div,main,footer{max-width:60rem;margin:0 auto;padding:1rem}
header.top h1{margin:.25rem 0;font-size:1.6rem;color:var(--header-fg)}
header.top img{max-height:3rem;max-width:12rem}
header.top p{margin:.25rem 0;color:var(--header-fg);opacity:.85}
h2{font-size:1.2rem;color:var(--title);margin:1.5rem 0 .5rem}
h3{font-size:1rem;margin:0;color:var(--title)}
.muted{color:var(--muted)}
.banner{border-radius:.5rem;padding:1rem 1.25rem;margin:1rem 0;color:var(--banner-fg);font-weight:600;font-size:1.15rem}
.banner h2{margin:0;font-size:inherit;color:inherit}.banner.operational{background:var(--ok)}.banner.degraded{background:var(--minor)}.banner.maintenance{background:var(--maint)}
.banner.partial-outage,.banner.major-outage{background:var(--major)}
.card{background:var(--card);border:1px solid var(--border);border-radius:.5rem;margin:1rem 0}
.card>h2,.card>.head{margin:0;padding:.75rem 1rem;border-bottom:1px solid var(--border);display:flex;justify-content:space-between;gap:1rem;flex-wrap:wrap}
.card>.head h2{margin:0}
ul.services{list-style:none;margin:0;padding:0}
ul.services>li{padding:.75rem 1rem;border-top:1px solid var(--border)}
ul.services>li:first-child{border-top:0}
.row{display:flex;justify-content:space-between;align-items:baseline;gap:1rem;flex-wrap:wrap}
.state{font-weight:600;font-size:.9rem}
.state.operational{color:var(--ok)}.state.degraded{color:var(--minor)}.state.maintenance{color:var(--maint)}
.state.partial-outage,.state.major-outage{color:var(--major)}
.bars{display:flex;gap:2px;height:2rem;margin-top:.5rem}
.bars i{flex:1;border-radius:2px;background:var(--none);min-width:1px}
.bars i.ok{background:var(--ok)}.bars i.minor{background:var(--minor)}.bars i.major{background:var(--major)}
.axis{display:flex;justify-content:space-between;font-size:.8rem;color:var(--muted)}
.incident{background:var(--card);border:1px solid var(--border);border-left:4px solid var(--major);border-radius:.5rem;padding:.75rem 1rem;margin:.75rem 0}
.incident.minor,.incident.medium{border-left-color:var(--minor)}.incident.maintenance{border-left-color:var(--maint)}
.incident.resolved{border-left-color:var(--ok)}
ol.timeline{list-style:none;margin:.5rem 0 0;padding:0}
ol.timeline li{margin:.5rem 0}
ol.timeline p{margin:.25rem 0 0;white-space:pre-wrap}
details>summary{cursor:pointer}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:.5rem 1rem;border-top:1px solid var(--border);vertical-align:top}
thead th{border-top:0;font-size:.85rem;color:var(--muted)}
td.bars-cell{min-width:14rem}
.tag{display:inline-block;font-size:.75rem;border:1px solid var(--border);border-radius:1rem;padding:0 .5rem;margin:.1rem .2rem 0 0;color:var(--muted)}
form.access{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:1rem;max-width:26rem}
form.access label{display:block;font-weight:600;margin-bottom:.25rem}
form.access input{width:100%;padding:.5rem;font:inherit;border:1px solid var(--border);border-radius:.25rem;background:var(--bg);color:var(--fg)}
form.access button{margin-top:.75rem;padding:.5rem 1rem;font:inherit;font-weight:600;border:0;border-radius:.25rem;background:var(--button-bg);color:var(--button-fg);cursor:pointer}
.error{color:var(--major);font-weight:600}
footer{font-size:.85rem;color:var(--muted)}
footer a{color:var(--nav)}
:focus-visible{outline:3px solid var(--link);outline-offset:2px}`;

export type Theme = 'light' | 'dark' | 'auto';

export interface Frame {
  title: string;
  /** The page's own name, shown as its heading. */
  heading: string;
  /** Keep the heading for screen readers only (a dashboard without its header). */
  hideHeading?: boolean;
  description?: string | null;
  logo?: string | null;
  logoDark?: string | null;
  logoLink?: string | null;
  favicon?: string | null;
  theme: Theme;
  themeColors?: { light?: unknown; dark?: unknown } | null;
  /** Seconds between reloads (wall-screen dashboards); none for status pages. */
  refreshSeconds?: number;
  /** Private pages are not for search engines. */
  noindex: boolean;
  /** The page owner's own style sheet (dashboards). */
  customCss?: string | null;
  body: string;
}

/** The whole document around a page's body. */
export function documentHtml(f: Frame): string {
  const light = `${LIGHT};${declarations(f.themeColors?.light)}`;
  const dark = `${DARK};${declarations(f.themeColors?.dark)}`;
  const theme = `:root{${light}}:root[data-theme=dark]{${dark}}` + `@media (prefers-color-scheme:dark){:root[data-theme=auto]{${dark}}}`;
  const logo = safeUrl(f.logo);
  const logoDark = safeUrl(f.logoDark);
  const image = logo
    ? (logoDark ? `<picture><source srcset="${escapeHtml(logoDark)}" media="(prefers-color-scheme: dark)">` : '') +
      `<img src="${escapeHtml(logo)}" alt="${escapeHtml(f.heading)}">` +
      (logoDark ? '</picture>' : '')
    : '';
  const link = safeUrl(f.logoLink);
  const favicon = safeUrl(f.favicon);
  // A style sheet cannot end its own element: "<" has no place in CSS outside strings anyway.
  const custom = f.customCss ? `<style>${f.customCss.replace(/</g, '\\3c ')}</style>` : '';
  return (
    `<!doctype html><html lang="en" data-theme="${f.theme}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(f.title)}</title>` +
    (f.description ? `<meta name="description" content="${escapeHtml(f.description)}">` : '') +
    (f.noindex ? '<meta name="robots" content="noindex">' : '') +
    (f.refreshSeconds ? `<meta http-equiv="refresh" content="${f.refreshSeconds}">` : '') +
    (favicon ? `<link rel="icon" href="${escapeHtml(favicon)}">` : '') +
    `<style>${theme}\n${CSS}</style>${custom}</head><body>` +
    '<a class="skip" href="#main">Skip to content</a>' +
    `<header class="top"><div>${image ? (link ? `<a href="${escapeHtml(link)}">${image}</a>` : image) : ''}` +
    `<h1${f.hideHeading ? ' class="sr"' : ''}>${escapeHtml(f.heading)}</h1>${f.description ? `<p>${escapeHtml(f.description)}</p>` : ''}</div></header>` +
    `<main id="main">${f.body}</main>` +
    '<footer><nav aria-label="Theme">Theme: <a href="?theme=light">Light</a> · <a href="?theme=dark">Dark</a> · ' +
    '<a href="?theme=auto">Automatic</a></nav><p>Powered by Outpost</p></footer></body></html>'
  );
}

/** The form a private page shows a visitor without access. */
export function accessFormHtml(action: string, failed: boolean): string {
  return (
    '<h2>This page is private</h2><p>Enter the access key its owner gave you.</p>' +
    (failed ? '<p class="error" role="alert">That key does not open this page.</p>' : '') +
    `<form class="access" method="post" action="${escapeHtml(action)}"><label for="key">Access key</label>` +
    '<input id="key" name="key" type="password" autocomplete="off" required><button type="submit">Open the page</button></form>'
  );
}
