// The registry: check type → runner. Adding a check type is adding a file and a line here.
import type { CheckRunner } from './types.js';
import { runTcp } from './tcp.js';
import { runUrl } from './url.js';
import { runDns } from './dns.js';
import { runApi } from './api.js';
import { runIcmp } from './icmp.js';
import { runBrowser } from './browser.js';
import { runMultiStep } from './multistep.js';
import { runPlaywright } from './playwright.js';

export const runners: Partial<Record<string, CheckRunner>> = {
  TCP: runTcp,
  URL: runUrl,
  DNS: runDns,
  API: runApi,
  ICMP: runIcmp,
  BROWSER: runBrowser,
  MULTI_STEP: runMultiStep,
  PLAYWRIGHT: runPlaywright,
};

export type { CheckRunner, RunContext } from './types.js';
