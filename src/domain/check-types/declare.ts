// What declaring a check type takes. Each type is one file beside this one; index.ts lists them,
// and from that list come the API's routes and validation, the type lists and job lanes, and
// the agent's runner registry (whose runners receive the request typed by the schema here).

import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';

/**
 * Where a type's jobs wait. `uptime`: the first lane, read by every agent (the uptime image
 * too). `full`: a lane only full agents read. `runtime`: a lane per runtime, read by agents
 * that carry it. `passive`: no jobs at all (heartbeats wait for pings).
 */
export type Lane = 'uptime' | 'full' | 'runtime' | 'passive';

/** A rule a check breaks beyond its schema, named as the API's 400 names it. */
export interface Violation {
  field: string;
  rule: string;
  message: string;
}

/** What a type's own rules may ask about other resources. */
export interface CheckRefs {
  snippetExists(id: number): boolean;
}

export interface CheckTypeDeclaration<R extends TObject | null = TObject | null> {
  /** Path segment of its create and update routes: /v1/checks/<path>. */
  path: string;
  lane: Lane;
  /** `script` is one of its own top-level fields. */
  takesScript: boolean;
  frequencies: readonly number[];
  responseTimeMax: number;
  /** Defaults of degradedResponseTime and maxResponseTime (null: none). */
  degradedDefault: number | null;
  maxDefault: number | null;
  /** The schema of `request` (null: the type has none, as browser checks). */
  request: R;
  /** Fills the request's defaults: runs on create and after every update, so runners get them all. */
  normaliseRequest?(request: R extends TObject ? Static<R> : never): R extends TObject ? Static<R> : never;
  /** Top-level fields only this type has (JSON schemas), with their defaults. */
  fields?: Record<string, object>;
  fieldDefaults?: Record<string, unknown>;
  /** Top-level fields required on create besides name (and request, where there is one). */
  required?: readonly string[];
  /** Rules of this type beyond its schema. */
  validate?(config: Record<string, unknown>, refs: CheckRefs): Violation | null;
  /** Its routes are its own (heartbeats: ping endpoints), not the generic create and update. */
  customRoutes?: boolean;
}

/** Keeps a declaration's request type precise for the runner registry. */
export function declareCheckType<R extends TObject | null, L extends Lane>(
  d: CheckTypeDeclaration<R> & { lane: L },
): CheckTypeDeclaration<R> & { lane: L } {
  return d;
}

export type RequestOf<D> = D extends CheckTypeDeclaration<infer R> ? (R extends TObject ? Static<R> : Record<string, unknown>) : never;

export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * An assertion as the API takes it: sources and comparisons per type; `target` is text or a
 * number (some types also a boolean), compared as text.
 */
export function assertion<S extends string, C extends string, T extends TSchema>(
  sources: readonly S[],
  comparisons: readonly C[],
  target: T,
  opts: { targetRequired?: boolean } = {},
) {
  const targetField = opts.targetRequired ? target : Type.Optional(target);
  return Type.Object({
    source: oneOf(sources),
    comparison: oneOf(comparisons),
    property: Type.Optional(Type.String({ default: '' })),
    target: targetField,
    regex: Type.Optional(Type.Union([Type.String(), Type.Null()], { default: null })),
  });
}

/** A target of these JSON types, '' when absent. */
export const targetOf = <T>(types: string[]) => Type.Unsafe<T>({ type: types, default: '' });

/** One of these strings: an `enum`, so a wrong value is answered with the list of right ones. */
export const oneOf = <const T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });

export const ipFamily = oneOf(['IPv4', 'IPv6']);

/** Assertions stored with their target as text, as the API shows them. */
export function textTargets<A extends { target?: unknown }>(assertions: A[] | undefined, trim = false): (A & { target: string })[] {
  return (assertions ?? []).map((a) => ({ ...a, target: trim ? String(a.target ?? '').trim() : String(a.target ?? '') }));
}
