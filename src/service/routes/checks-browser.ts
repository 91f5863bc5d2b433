// Browser checks: POST /v1/checks/browser, PUT /v1/checks/browser/{id}. A script against
// @playwright/test or plain playwright, run in Chromium under the check's runtime.

import { BROWSER_FREQUENCIES, URL_RESPONSE_TIME_MAX } from '../../domain/limits.js';
import { checkTypeRoutes } from './check-type.js';
import { environmentVariablesSchema, dependenciesSchema, artifactsSchema, DEFAULT_ARTIFACTS } from './check-fields.js';

const nullableString = { anyOf: [{ type: 'string' }, { type: 'null' }] };

export default checkTypeRoutes({
  checkType: 'BROWSER',
  path: 'browser',
  frequencies: BROWSER_FREQUENCIES,
  responseTimeMax: URL_RESPONSE_TIME_MAX,
  degradedDefault: null,
  maxDefault: null,
  required: ['script'],
  extraProperties: {
    script: { type: 'string', minLength: 1 },
    scriptPath: nullableString,
    dependencies: dependenciesSchema,
    sslCheckDomain: nullableString,
    environmentVariables: environmentVariablesSchema,
    artifacts: artifactsSchema,
  },
  extraDefaults: { scriptPath: null, dependencies: null, sslCheckDomain: null, environmentVariables: [], artifacts: DEFAULT_ARTIFACTS },
});
