// The create and update routes of every check type domain/check-types.ts declares: one plugin
// each, and a declared type without one does not compile.

import type { FastifyPluginAsync } from 'fastify';
import type { DeclaredCheckType } from '../../domain/check-types.js';
import type { Deps } from '../deps.js';
import checksApi from './checks-api.js';
import checksBrowser from './checks-browser.js';
import checksDns from './checks-dns.js';
import checksHeartbeat from './checks-heartbeat.js';
import checksIcmp from './checks-icmp.js';
import checksMultiStep from './checks-multistep.js';
import checksPlaywright from './checks-playwright.js';
import checksTcp from './checks-tcp.js';
import checksUrl from './checks-url.js';

export const checkTypePlugins: Record<DeclaredCheckType, FastifyPluginAsync<Deps>> = {
  TCP: checksTcp,
  URL: checksUrl,
  DNS: checksDns,
  ICMP: checksIcmp,
  API: checksApi,
  HEARTBEAT: checksHeartbeat,
  BROWSER: checksBrowser,
  MULTI_STEP: checksMultiStep,
  PLAYWRIGHT: checksPlaywright,
};
