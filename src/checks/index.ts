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
};

export type { CheckRunner, RunContext } from './types.js';
