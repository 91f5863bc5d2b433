// Every check type Outpost runs, declared once (one file each beside this one). The type lists,
// the job lanes, the API's routes and validation and the agent's runner registry come from this
// table, so a type declared here without a runner or routes does not compile.

import tcp from './tcp.js';
import url from './url.js';
import dns from './dns.js';
import icmp from './icmp.js';
import api from './api.js';
import heartbeat from './heartbeat.js';
import browser from './browser.js';
import multistep from './multistep.js';
import playwright from './playwright.js';
import type { CheckTypeDeclaration, Lane } from './declare.js';

export const CHECK_TYPES = {
  TCP: tcp,
  URL: url,
  DNS: dns,
  ICMP: icmp,
  API: api,
  HEARTBEAT: heartbeat,
  BROWSER: browser,
  MULTI_STEP: multistep,
  PLAYWRIGHT: playwright,
};

export type DeclaredCheckType = keyof typeof CHECK_TYPES;
/** Types an agent runs (all but the passive ones). */
export type RunnableCheckType = {
  [T in DeclaredCheckType]: (typeof CHECK_TYPES)[T]['lane'] extends 'passive' ? never : T;
}[DeclaredCheckType];

export const DECLARED_CHECK_TYPES = Object.keys(CHECK_TYPES) as DeclaredCheckType[];

export function declarationOf(type: string): CheckTypeDeclaration | undefined {
  return (CHECK_TYPES as Record<string, CheckTypeDeclaration>)[type];
}

function typesIn(lane: Lane): ReadonlySet<string> {
  return new Set(DECLARED_CHECK_TYPES.filter((t) => CHECK_TYPES[t].lane === lane));
}

/** Check types the uptime agent profile runs; everything else needs the full agent. */
export const UPTIME_CHECK_TYPES = typesIn('uptime');
/** Check types whose code runs under a runtime, in a browser or with Playwright's test runner. */
export const RUNTIME_CHECK_TYPES = typesIn('runtime');

export type { CheckTypeDeclaration, Lane, RequestOf, Violation, CheckRefs } from './declare.js';
