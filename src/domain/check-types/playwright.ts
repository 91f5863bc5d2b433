// Playwright checks: a whole Playwright suite, its files in `dependencies`, its config at
// `playwrightConfigPath`, and the projects and tags to run (`pwProjects`, `pwTags`, as the CLI's
// PlaywrightCheck names them).

import { BROWSER_FREQUENCIES, URL_RESPONSE_TIME_MAX } from '../limits.js';
import { declareCheckType } from './declare.js';
import { artifactsSchema, DEFAULT_ARTIFACTS, dependenciesSchema, environmentVariablesSchema } from './fields.js';

const names = { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 200 } };

export default declareCheckType({
  path: 'playwright',
  lane: 'runtime',
  takesScript: false,
  frequencies: BROWSER_FREQUENCIES,
  responseTimeMax: URL_RESPONSE_TIME_MAX,
  degradedDefault: null,
  maxDefault: null,
  request: null,
  required: ['dependencies'],
  fields: {
    dependencies: { ...dependenciesSchema.anyOf[0], minItems: 1 },
    playwrightConfigPath: { type: 'string', minLength: 1, maxLength: 500 },
    pwProjects: names,
    pwTags: names,
    environmentVariables: environmentVariablesSchema,
    artifacts: artifactsSchema,
  },
  fieldDefaults: {
    playwrightConfigPath: 'playwright.config.ts',
    pwProjects: [],
    pwTags: [],
    environmentVariables: [],
    artifacts: DEFAULT_ARTIFACTS,
  },
  validate(cfg) {
    const files = (cfg.dependencies as { path: string }[]).map((d) => d.path.replace(/^\.\//, ''));
    const config = String(cfg.playwrightConfigPath).replace(/^\.\//, '');
    if (files.includes(config)) return null;
    return {
      field: 'playwrightConfigPath',
      rule: 'exists',
      message: `playwrightConfigPath ${JSON.stringify(cfg.playwrightConfigPath)} is not one of the files in dependencies`,
    };
  },
});
