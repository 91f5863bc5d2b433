// Browser checks: a script against @playwright/test or plain playwright, run in Chromium under
// the check's runtime.

import { BROWSER_FREQUENCIES, URL_RESPONSE_TIME_MAX } from '../limits.js';
import { declareCheckType } from './declare.js';
import { scriptCheckDefaults, scriptCheckProperties } from './fields.js';

export default declareCheckType({
  path: 'browser',
  lane: 'runtime',
  takesScript: true,
  frequencies: BROWSER_FREQUENCIES,
  responseTimeMax: URL_RESPONSE_TIME_MAX,
  degradedDefault: null,
  maxDefault: null,
  request: null,
  required: ['script'],
  fields: { ...scriptCheckProperties, sslCheckDomain: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
  fieldDefaults: { ...scriptCheckDefaults, sslCheckDomain: null },
});
