// Playwright checks: POST /v1/checks/playwright, PUT /v1/checks/playwright/{id}. A whole
// Playwright suite: its files in `dependencies`, its config at `playwrightConfigPath`, and the
// projects and tags to run (`pwProjects`, `pwTags`, as the CLI's PlaywrightCheck names them).

import { BROWSER_FREQUENCIES, URL_RESPONSE_TIME_MAX } from '../../domain/limits.js';
import { checkTypeRoutes } from './check-type.js';
import { environmentVariablesSchema, dependenciesSchema, artifactsSchema, DEFAULT_ARTIFACTS } from './check-fields.js';
import { ApiError } from '../errors.js';

const names = { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 200 } };

export default checkTypeRoutes({
  checkType: 'PLAYWRIGHT',
  frequencies: BROWSER_FREQUENCIES,
  responseTimeMax: URL_RESPONSE_TIME_MAX,
  degradedDefault: null,
  maxDefault: null,
  required: ['dependencies'],
  extraProperties: {
    dependencies: { ...dependenciesSchema.anyOf[0], minItems: 1 },
    playwrightConfigPath: { type: 'string', minLength: 1, maxLength: 500 },
    pwProjects: names,
    pwTags: names,
    environmentVariables: environmentVariablesSchema,
    artifacts: artifactsSchema,
  },
  extraDefaults: {
    playwrightConfigPath: 'playwright.config.ts',
    pwProjects: [],
    pwTags: [],
    environmentVariables: [],
    artifacts: DEFAULT_ARTIFACTS,
  },
  validate(cfg) {
    const files = (cfg.dependencies as { path: string }[]).map((d) => d.path.replace(/^\.\//, ''));
    const config = String(cfg.playwrightConfigPath).replace(/^\.\//, '');
    if (!files.includes(config)) {
      throw new ApiError(400, `playwrightConfigPath ${JSON.stringify(cfg.playwrightConfigPath)} is not one of the files in dependencies`, {
        field: 'playwrightConfigPath',
        rule: 'exists',
      });
    }
  },
});
