// The registry: check type → runner, one for every type domain/check-types.ts declares as
// runnable (a declared type without a runner does not compile).
import type { RunnableCheckType } from '../domain/check-types.js';
import type { CheckRunner } from './types.js';
import { runTcp } from './tcp.js';
import { runUrl } from './url.js';
import { runDns } from './dns.js';
import { runApi } from './api.js';
import { runIcmp } from './icmp.js';

const registry: Record<RunnableCheckType, CheckRunner> = {
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

/** Looked up by the type a job names, which may be one this agent does not know. */
export const runners: Partial<Record<string, CheckRunner>> = registry;

export type { CheckRunner, RunContext } from './types.js';
