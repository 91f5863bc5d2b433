// Multi-step checks: a script of API calls (Playwright's request fixture), run under the
// check's runtime.

import { declareCheckType } from './declare.js';
import { scriptCheckDefaults, scriptCheckProperties, scriptCheckType } from './fields.js';

export default declareCheckType({
  ...scriptCheckType,
  path: 'multistep',
  fields: scriptCheckProperties,
  fieldDefaults: scriptCheckDefaults,
});
