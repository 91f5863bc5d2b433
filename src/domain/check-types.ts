// Every check type Outpost runs, declared once. The type lists, the job lanes, the API paths, the
// runner registry and the route plugins are derived from (or checked against) this table, so a
// new type that is declared here but lacks a runner or routes does not compile.

/**
 * Where a type's jobs wait. `uptime`: the first lane, read by every agent (the uptime image
 * too). `full`: a lane only full agents read. `runtime`: a lane per runtime, read by agents
 * that carry it. `passive`: no jobs at all (heartbeats wait for pings).
 */
export type Lane = 'uptime' | 'full' | 'runtime' | 'passive';

export interface CheckTypeDeclaration {
  /** Path segment of its create and update routes: /v1/checks/<path>. */
  path: string;
  lane: Lane;
  /** `script` is one of its own top-level fields. */
  takesScript: boolean;
}

export const CHECK_TYPE_DECLARATIONS = {
  TCP: { path: 'tcp', lane: 'uptime', takesScript: false },
  URL: { path: 'url', lane: 'uptime', takesScript: false },
  DNS: { path: 'dns', lane: 'uptime', takesScript: false },
  ICMP: { path: 'icmp', lane: 'uptime', takesScript: false },
  API: { path: 'api', lane: 'full', takesScript: false },
  HEARTBEAT: { path: 'heartbeat', lane: 'passive', takesScript: true },
  BROWSER: { path: 'browser', lane: 'runtime', takesScript: true },
  MULTI_STEP: { path: 'multistep', lane: 'runtime', takesScript: true },
  PLAYWRIGHT: { path: 'playwright', lane: 'runtime', takesScript: false },
} as const satisfies Record<string, CheckTypeDeclaration>;

export type DeclaredCheckType = keyof typeof CHECK_TYPE_DECLARATIONS;
/** Types an agent runs (all but the passive ones). */
export type RunnableCheckType = {
  [T in DeclaredCheckType]: (typeof CHECK_TYPE_DECLARATIONS)[T]['lane'] extends 'passive' ? never : T;
}[DeclaredCheckType];

export const DECLARED_CHECK_TYPES = Object.keys(CHECK_TYPE_DECLARATIONS) as DeclaredCheckType[];

export function declarationOf(type: string): CheckTypeDeclaration | undefined {
  return (CHECK_TYPE_DECLARATIONS as Record<string, CheckTypeDeclaration>)[type];
}

function typesIn(lane: Lane): ReadonlySet<string> {
  return new Set(DECLARED_CHECK_TYPES.filter((t) => CHECK_TYPE_DECLARATIONS[t].lane === lane));
}

/** Check types the uptime agent profile runs; everything else needs the full agent. */
export const UPTIME_CHECK_TYPES = typesIn('uptime');
/** Check types whose code runs under a runtime, in a browser or with Playwright's test runner. */
export const RUNTIME_CHECK_TYPES = typesIn('runtime');
