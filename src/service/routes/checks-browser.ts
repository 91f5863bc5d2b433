// Browser checks: POST /v1/checks/browser, PUT /v1/checks/browser/{id}. A script against
// @playwright/test or plain playwright, run in Chromium under the check's runtime.

import { BROWSER_FREQUENCIES, URL_RESPONSE_TIME_MAX } from '../../domain/limits.js';
import { checkTypeRoutes } from './check-type.js';
import { scriptCheckProperties, scriptCheckDefaults } from './check-fields.js';

export default checkTypeRoutes({
  checkType: 'BROWSER',
  frequencies: BROWSER_FREQUENCIES,
  responseTimeMax: URL_RESPONSE_TIME_MAX,
  degradedDefault: null,
  maxDefault: null,
  required: ['script'],
  extraProperties: { ...scriptCheckProperties, sslCheckDomain: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
  extraDefaults: { ...scriptCheckDefaults, sslCheckDomain: null },
});
