// Multi-step checks: POST /v1/checks/multistep, PUT /v1/checks/multistep/{id}. A
// @playwright/test script of test.step()s, for runtimes with multiStepSupport.

import { BROWSER_FREQUENCIES, URL_RESPONSE_TIME_MAX } from '../../domain/limits.js';
import { checkTypeRoutes } from './check-type.js';
import { scriptCheckProperties, scriptCheckDefaults } from './check-fields.js';

export default checkTypeRoutes({
  checkType: 'MULTI_STEP',
  frequencies: BROWSER_FREQUENCIES,
  responseTimeMax: URL_RESPONSE_TIME_MAX,
  degradedDefault: null,
  maxDefault: null,
  required: ['script'],
  extraProperties: scriptCheckProperties,
  extraDefaults: scriptCheckDefaults,
});
