// Status badges: an SVG a README or wiki embeds, saying how a check or group is doing. Pure.

export const BADGE_STYLES = ['flat', 'plastic', 'flat-square', 'for-the-badge', 'social'] as const;
export const BADGE_THEMES = ['light', 'dark', 'default'] as const;
export type BadgeStyle = (typeof BADGE_STYLES)[number];
export type BadgeTheme = (typeof BADGE_THEMES)[number];
export type BadgeState = 'passing' | 'degraded' | 'failing' | 'inactive' | 'unknown';

/** The worst of several states (a group's members). */
export function worstState(states: readonly BadgeState[]): BadgeState {
  for (const s of ['failing', 'degraded', 'passing', 'inactive'] as const) if (states.includes(s)) return s;
  return 'unknown';
}

export function stateOf(s: { activated: boolean; status: { hasFailures: boolean; isDegraded: boolean } | null }): BadgeState {
  if (!s.activated) return 'inactive';
  if (!s.status) return 'unknown';
  return s.status.hasFailures ? 'failing' : s.status.isDegraded ? 'degraded' : 'passing';
}

const COLORS: Record<BadgeState, string> = {
  passing: '#2da44e',
  degraded: '#d29922',
  failing: '#cf222e',
  inactive: '#8c959f',
  unknown: '#8c959f',
};
const LABEL_BG: Record<BadgeTheme, string> = { default: '#555', light: '#eaeef2', dark: '#24292f' };
const LABEL_FG: Record<BadgeTheme, string> = { default: '#fff', light: '#24292f', dark: '#fff' };

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Width of text in 11px Verdana, near enough for a badge: narrow, wide and other glyphs. */
function textWidth(s: string, caps = false): number {
  let w = 0;
  for (const ch of caps ? s.toUpperCase() : s)
    w += /[il.,:;|!' ]/.test(ch) ? 3.5 : /[mwMW@%]/.test(ch) ? 10 : /[A-Z0-9]/.test(ch) ? 7.5 : 6.5;
  return Math.ceil(w * (caps ? 1.1 : 1));
}

export interface Badge {
  label: string;
  state: BadgeState;
  /** Shown after the state, e.g. a response time. */
  detail?: string;
  style?: BadgeStyle;
  theme?: BadgeTheme;
}

export function badgeSvg(b: Badge): string {
  const style = b.style ?? 'flat';
  const theme = b.theme ?? 'default';
  const caps = style === 'for-the-badge';
  const label = caps ? b.label.toUpperCase() : b.label;
  const message = b.detail ? `${b.state} | ${b.detail}` : b.state;
  const text = caps ? message.toUpperCase() : message;
  const pad = caps ? 12 : 6;
  const height = caps ? 28 : 20;
  const lw = textWidth(label, caps) + 2 * pad;
  const mw = textWidth(text, caps) + 2 * pad;
  const radius = style === 'flat-square' || style === 'for-the-badge' ? 0 : 3;
  const gloss =
    style === 'plastic'
      ? '<linearGradient id="g" x2="0" y2="100%"><stop offset="0" stop-color="#fff" stop-opacity=".7"/><stop offset=".1" stop-color="#aaa" stop-opacity=".1"/><stop offset=".9" stop-opacity=".3"/><stop offset="1" stop-opacity=".5"/></linearGradient>'
      : style === 'flat'
        ? '<linearGradient id="g" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>'
        : '';
  const color = style === 'social' ? '#fff' : COLORS[b.state];
  const messageFg = style === 'social' ? '#24292f' : '#fff';
  const y = caps ? 18 : 14;
  const title = `${b.label}: ${message}`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${lw + mw}" height="${height}" role="img" aria-label="${escape(title)}">` +
    `<title>${escape(title)}</title>${gloss}` +
    `<clipPath id="r"><rect width="${lw + mw}" height="${height}" rx="${radius}" fill="#fff"/></clipPath>` +
    `<g clip-path="url(#r)"><rect width="${lw}" height="${height}" fill="${LABEL_BG[theme]}"/>` +
    `<rect x="${lw}" width="${mw}" height="${height}" fill="${color}"${style === 'social' ? ' stroke="#d0d7de"' : ''}/>` +
    (gloss ? `<rect width="${lw + mw}" height="${height}" fill="url(#g)"/>` : '') +
    `</g><g font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle"${caps ? ' font-weight="bold" letter-spacing="1"' : ''}>` +
    `<text x="${lw / 2}" y="${y}" fill="${LABEL_FG[theme]}">${escape(label)}</text>` +
    `<text x="${lw + mw / 2}" y="${y}" fill="${messageFg}">${escape(text)}</text></g></svg>`
  );
}
