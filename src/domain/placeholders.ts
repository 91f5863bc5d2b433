// {{KEY}} placeholders and the masking of secret values. Pure.

import type { Variable } from './run.js';

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Later variables win: pass them broadest scope first (account, group, check). */
export function variableMap(vars: readonly Variable[] | undefined): Map<string, Variable> {
  const m = new Map<string, Variable>();
  for (const v of vars ?? []) m.set(v.key, v);
  return m;
}

/** Fills placeholders; an unknown key is left as written, so the failure shows what was missing. */
export function fill(text: string, vars: Map<string, Variable>): string {
  return text.replace(PLACEHOLDER, (whole, key: string) => vars.get(key)?.value ?? whole);
}

/**
 * The forms a secret takes on its way into a result: as written, URL-encoded (a query parameter,
 * a path segment, a form body) and, since hosts and some headers are case-folded, in any case.
 */
const patterns = new WeakMap<Map<string, Variable>, RegExp | null>();

function secretPattern(vars: Map<string, Variable>): RegExp | null {
  // One run masks many strings with the same variables: build the pattern once per map.
  const known = patterns.get(vars);
  if (known !== undefined) return known;
  const pattern = buildPattern(vars);
  patterns.set(vars, pattern);
  return pattern;
}

function buildPattern(vars: Map<string, Variable>): RegExp | null {
  const forms = new Set<string>();
  for (const v of vars.values()) {
    if (!v.secret || !v.value) continue;
    forms.add(v.value);
    forms.add(encodeURIComponent(v.value));
    forms.add(encodeURI(v.value));
    forms.add(new URLSearchParams({ s: v.value }).toString().slice(2));
  }
  if (forms.size === 0) return null;
  // Longest first, so a form that contains another is replaced whole.
  const alternatives = [...forms].sort((a, b) => b.length - a.length).map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(alternatives.join('|'), 'gi');
}

/** Replaces every secret value in text, in every form it may take, so results never carry one. */
export function maskSecrets(text: string, vars: Map<string, Variable>): string {
  const pattern = secretPattern(vars);
  return pattern ? text.replace(pattern, '*****') : text;
}

/** maskSecrets through every string of a JSON-like value. */
export function maskDeep<T>(value: T, vars: Map<string, Variable>): T {
  const pattern = secretPattern(vars);
  if (!pattern) return value;
  const walk = (x: unknown): unknown => {
    if (typeof x === 'string') return x.replace(pattern, '*****');
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, walk(v)]));
    return x;
  };
  return walk(value) as T;
}
