// JSON schemas of fields several check types share beyond the common ones: their own
// variables, and the script, files and artifacts of browser, multi-step and Playwright checks.

import { BROWSER_FREQUENCIES, URL_RESPONSE_TIME_MAX } from '../limits.js';

const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });

export const environmentVariable = {
  type: 'object',
  required: ['key', 'value'],
  properties: {
    key: { type: 'string', minLength: 1, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
    // null: keep the stored value of this secret (the API shows secrets as null).
    value: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    locked: { type: 'boolean' },
    secret: { type: 'boolean' },
  },
};
/** The check's own variables (at most 50, as the spec says). */
export const environmentVariablesSchema = nullable({ type: 'array', maxItems: 50, items: environmentVariable });

/** Files beside a script, or a Playwright suite's files: relative paths inside the check's folder. */
export const dependenciesSchema = nullable({
  type: 'array',
  maxItems: 500,
  items: {
    type: 'object',
    required: ['path', 'content'],
    properties: {
      path: { type: 'string', minLength: 1, maxLength: 500, pattern: '^(?!/)(?!.*(^|/)\\.\\.(/|$))(?!node_modules/)[^\\\\]+$' },
      content: { type: 'string', maxLength: 5 * 1024 * 1024 },
    },
  },
});

/** Which Playwright artifacts a run keeps (Playwright's own option values). */
export const artifactsSchema = nullable({
  type: 'object',
  properties: {
    screenshot: { type: 'string', enum: ['on', 'off', 'only-on-failure'] },
    trace: { type: 'string', enum: ['on', 'off', 'retain-on-failure'] },
    video: { type: 'string', enum: ['on', 'off', 'retain-on-failure'] },
  },
});
export const DEFAULT_ARTIFACTS = { screenshot: 'on', trace: 'on', video: 'off' };

/** What browser and multi-step checks share: their script, its files, variables and artifacts. */
export const scriptCheckProperties = {
  script: { type: 'string', minLength: 1 },
  scriptPath: nullable({ type: 'string' }),
  dependencies: dependenciesSchema,
  environmentVariables: environmentVariablesSchema,
  artifacts: artifactsSchema,
};
export const scriptCheckDefaults = { scriptPath: null, dependencies: null, environmentVariables: [], artifacts: DEFAULT_ARTIFACTS };

/** What browser and multi-step checks declare alike: a script run under a runtime. */
export const scriptCheckType = {
  lane: 'runtime',
  takesScript: true,
  frequencies: BROWSER_FREQUENCIES,
  responseTimeMax: URL_RESPONSE_TIME_MAX,
  degradedDefault: null,
  maxDefault: null,
  request: null,
  required: ['script'],
} as const;
