// Browser checks: a script against @playwright/test or plain playwright, run in Chromium under
// the check's runtime.

import { declareCheckType } from './declare.js';
import { scriptCheckDefaults, scriptCheckProperties, scriptCheckType } from './fields.js';

export default declareCheckType({
  ...scriptCheckType,
  path: 'browser',
  fields: { ...scriptCheckProperties, sslCheckDomain: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
  fieldDefaults: { ...scriptCheckDefaults, sslCheckDomain: null },
});
