// The registry: check type → runner, one for every type src/domain/check-types/ declares as
// runnable (a declared type without a runner, or a runner of another request, does not compile).
import type { CHECK_TYPES, RequestOf, RunnableCheckType } from '../domain/check-types/index.js';
import type { CheckRunner, RunContext } from './types.js';
import type { Job, ProbeOutcome } from '../domain/run.js';
import { runTcp } from './tcp.js';

const registry: { [T in RunnableCheckType]: CheckRunner<RequestOf<(typeof CHECK_TYPES)[T]>> } = {
  TCP: runTcp,
  // Loaded on first use: an idle agent, or one that runs only some types, does not hold the
  // others' code (the HTTP runners' alone is several MB).
  URL: async (job, ctx) => (await import('./url.js')).runUrl(job, ctx),
  DNS: async (job, ctx) => (await import('./dns.js')).runDns(job, ctx),
  API: async (job, ctx) => (await import('./api.js')).runApi(job, ctx),
  ICMP: async (job, ctx) => (await import('./icmp.js')).runIcmp(job, ctx),
  BROWSER: async (job, ctx) => (await import('./browser.js')).runBrowser(job, ctx),
  MULTI_STEP: async (job, ctx) => (await import('./multistep.js')).runMultiStep(job, ctx),
  PLAYWRIGHT: async (job, ctx) => (await import('./playwright.js')).runPlaywright(job, ctx),
};

/**
 * Each runnable type's lane as its declaration states it (the compiler holds the two equal).
 * The agent reads lanes here rather than from the declarations, so it never loads their
 * schemas (TypeBox alone is ~15 MB of memory).
 */
const lanes: { [T in RunnableCheckType]: (typeof CHECK_TYPES)[T]['lane'] } = {
  TCP: 'uptime',
  URL: 'uptime',
  DNS: 'uptime',
  ICMP: 'uptime',
  API: 'full',
  BROWSER: 'runtime',
  MULTI_STEP: 'runtime',
  PLAYWRIGHT: 'runtime',
};
const typesIn = (lane: string): ReadonlySet<string> => new Set(Object.entries(lanes).flatMap(([t, l]) => (l === lane ? [t] : [])));
/** Types the uptime profile runs. */
export const UPTIME_TYPES = typesIn('uptime');
/** Types that run under a runtime and hold a browser slot. */
export const BROWSER_TYPES = typesIn('runtime');

/**
 * Looked up by the type a job names, which may be one this agent does not know. The service
 * validated the job's request against that type's schema, so each runner gets its own type.
 */
export const runners: Partial<Record<string, AnyRunner>> = registry;

// Declared as a method, so a runner of a narrower request is accepted where any job may come.
type AnyRunner = { run(job: Job, ctx: RunContext): Promise<ProbeOutcome> }['run'];

export type { CheckRunner, RunContext } from './types.js';
