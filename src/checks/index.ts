// The registry: check type → runner. Adding a check type is adding a file and a line here.
import type { CheckRunner } from './types.js';
import { runTcp } from './tcp.js';
import { runUrl } from './url.js';
import { runDns } from './dns.js';
import { runApi } from './api.js';
import { runIcmp } from './icmp.js';

export const runners: Partial<Record<string, CheckRunner>> = {
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

export type { CheckRunner, RunContext } from './types.js';
