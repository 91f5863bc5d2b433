// The registry: check type → runner, one for every type domain/check-types.ts declares as
// runnable (a declared type without a runner does not compile).
import type { CHECK_TYPES, RequestOf, RunnableCheckType } from '../domain/check-types/index.js';
import type { CheckRunner, RunContext } from './types.js';
import type { Job, ProbeOutcome } from '../domain/run.js';
import { runTcp } from './tcp.js';
import { runUrl } from './url.js';
import { runDns } from './dns.js';
import { runApi } from './api.js';
import { runIcmp } from './icmp.js';

const registry: { [T in RunnableCheckType]: CheckRunner<RequestOf<(typeof CHECK_TYPES)[T]>> } = {
  TCP: runTcp,
  URL: runUrl,
  DNS: runDns,
  API: runApi,
  ICMP: runIcmp,
  // Loaded on first use: uptime agents and agents without browser jobs never pay for them.
  BROWSER: async (job, ctx) => (await import('./browser.js')).runBrowser(job, ctx),
  MULTI_STEP: async (job, ctx) => (await import('./multistep.js')).runMultiStep(job, ctx),
  PLAYWRIGHT: async (job, ctx) => (await import('./playwright.js')).runPlaywright(job, ctx),
};

/**
 * Looked up by the type a job names, which may be one this agent does not know. The service
 * validated the job's request against that type's schema, so each runner gets its own type.
 */
export const runners: Partial<Record<string, AnyRunner>> = registry;

// Declared as a method, so a runner of a narrower request is accepted where any job may come.
type AnyRunner = { run(job: Job, ctx: RunContext): Promise<ProbeOutcome> }['run'];

export type { CheckRunner, RunContext } from './types.js';
