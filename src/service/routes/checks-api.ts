// API checks: POST /v1/checks/api, PUT /v1/checks/api/{id}.

import { TCP_FREQUENCIES, URL_RESPONSE_TIME_MAX, JSON_ASSERTION_COMPARISONS } from '../../domain/limits.js';
import { checkTypeRoutes } from './check-type.js';
import { environmentVariablesSchema } from './check-fields.js';
import { ApiError } from '../errors.js';

const keyValue = {
  type: 'object',
  required: ['key', 'value'],
  properties: { key: { type: 'string', minLength: 1 }, value: { type: 'string' }, locked: { type: 'boolean' } },
};
const assertion = {
  type: 'object',
  required: ['source', 'comparison'],
  properties: {
    source: { type: 'string', enum: ['STATUS_CODE', 'JSON_BODY', 'HEADERS', 'TEXT_BODY', 'RESPONSE_TIME'] },
    comparison: { type: 'string', enum: [...JSON_ASSERTION_COMPARISONS] },
    property: { type: 'string', default: '' },
    target: { type: ['string', 'number', 'boolean'], default: '' },
    regex: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null },
  },
};
const nullableString = { anyOf: [{ type: 'string' }, { type: 'null' }] };
const nullableId = { anyOf: [{ type: 'number' }, { type: 'null' }] };

export default checkTypeRoutes({
  checkType: 'API',
  frequencies: TCP_FREQUENCIES,
  responseTimeMax: URL_RESPONSE_TIME_MAX,
  degradedDefault: 5000,
  maxDefault: 20000,
  requestProperties: {
    method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'HEAD', 'DELETE', 'PATCH'] },
    url: { type: 'string', minLength: 1, maxLength: 2048, pattern: '^(https?://|\\{\\{)[^\\s]+$' },
    followRedirects: { type: 'boolean' },
    skipSSL: { type: 'boolean' },
    ipFamily: { type: 'string', enum: ['IPv4', 'IPv6'] },
    body: { type: 'string' },
    bodyType: { type: 'string', enum: ['JSON', 'FORM', 'RAW', 'GRAPHQL', 'NONE'] },
    headers: { type: 'array', items: keyValue },
    queryParameters: { type: 'array', items: keyValue },
    basicAuth: {
      anyOf: [
        { type: 'object', required: ['username', 'password'], properties: { username: { type: 'string' }, password: { type: 'string' } } },
        { type: 'null' },
      ],
    },
    assertions: { type: 'array', items: assertion },
  },
  requestRequired: ['method', 'url'],
  normaliseRequest: (r) => ({
    method: r.method,
    url: r.url,
    followRedirects: r.followRedirects ?? true,
    skipSSL: r.skipSSL ?? false,
    ipFamily: r.ipFamily ?? 'IPv4',
    body: r.body ?? '',
    bodyType: r.bodyType ?? 'NONE',
    headers: r.headers ?? [],
    queryParameters: r.queryParameters ?? [],
    basicAuth: r.basicAuth ?? null,
    assertions: ((r.assertions as { target: unknown }[] | undefined) ?? []).map((a) => ({ ...a, target: String(a.target) })),
  }),
  extraProperties: {
    environmentVariables: environmentVariablesSchema,
    localSetupScript: nullableString,
    localTearDownScript: nullableString,
    setupSnippetId: nullableId,
    tearDownSnippetId: nullableId,
  },
  extraDefaults: {
    environmentVariables: [],
    localSetupScript: null,
    localTearDownScript: null,
    setupSnippetId: null,
    tearDownSnippetId: null,
  },
  validate(cfg, deps, accountId) {
    for (const f of ['setupSnippetId', 'tearDownSnippetId'] as const) {
      const id = cfg[f] as number | null;
      if (id !== null && deps.snippets.script(accountId, id) === null)
        throw new ApiError(400, `${f} names no snippet with id ${id}`, { field: f, rule: 'exists' });
    }
  },
});
