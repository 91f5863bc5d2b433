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

/** Replaces every secret value in text, so results never carry one. */
export function maskSecrets(text: string, vars: Map<string, Variable>): string {
  let out = text;
  for (const v of vars.values()) if (v.secret && v.value) out = out.split(v.value).join('*****');
  return out;
}

/** maskSecrets through every string of a JSON-like value. */
export function maskDeep<T>(value: T, vars: Map<string, Variable>): T {
  if (![...vars.values()].some((v) => v.secret && v.value)) return value;
  const walk = (x: unknown): unknown => {
    if (typeof x === 'string') return maskSecrets(x, vars);
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, walk(v)]));
    return x;
  };
  return walk(value) as T;
}
