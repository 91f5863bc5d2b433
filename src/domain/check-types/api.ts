// API checks: one HTTP request with headers, query, body and auth, setup and teardown scripts,
// its status, headers, body and timing asserted.

import { Type, type Static } from '@sinclair/typebox';
import { JSON_ASSERTION_COMPARISONS, TCP_FREQUENCIES, URL_RESPONSE_TIME_MAX } from '../limits.js';
import { assertion, declareCheckType, ipFamily, nullable, oneOf, targetOf, textTargets } from './declare.js';
import { environmentVariablesSchema } from './fields.js';

const keyValue = Type.Object({ key: Type.String({ minLength: 1 }), value: Type.String(), locked: Type.Optional(Type.Boolean()) });
const SOURCES = ['STATUS_CODE', 'JSON_BODY', 'HEADERS', 'TEXT_BODY', 'RESPONSE_TIME'] as const;

const request = Type.Object({
  method: oneOf(['GET', 'POST', 'PUT', 'HEAD', 'DELETE', 'PATCH']),
  url: Type.String({ minLength: 1, maxLength: 2048, pattern: '^(https?://|\\{\\{)[^\\s]+$' }),
  followRedirects: Type.Optional(Type.Boolean()),
  skipSSL: Type.Optional(Type.Boolean()),
  ipFamily: Type.Optional(ipFamily),
  body: Type.Optional(Type.String()),
  bodyType: Type.Optional(oneOf(['JSON', 'FORM', 'RAW', 'GRAPHQL', 'NONE'])),
  headers: Type.Optional(Type.Array(keyValue)),
  queryParameters: Type.Optional(Type.Array(keyValue)),
  basicAuth: Type.Optional(nullable(Type.Object({ username: Type.String(), password: Type.String() }))),
  assertions: Type.Optional(
    Type.Array(assertion(SOURCES, JSON_ASSERTION_COMPARISONS, targetOf<string | number | boolean>(['string', 'number', 'boolean']))),
  ),
});
export type ApiRequest = Static<typeof request>;

const nullableString = { anyOf: [{ type: 'string' }, { type: 'null' }] };
const nullableId = { anyOf: [{ type: 'number' }, { type: 'null' }] };

export default declareCheckType({
  path: 'api',
  lane: 'full',
  takesScript: false,
  frequencies: TCP_FREQUENCIES,
  responseTimeMax: URL_RESPONSE_TIME_MAX,
  degradedDefault: 5000,
  maxDefault: 20000,
  request,
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
    assertions: textTargets(r.assertions),
  }),
  fields: {
    environmentVariables: environmentVariablesSchema,
    localSetupScript: nullableString,
    localTearDownScript: nullableString,
    setupSnippetId: nullableId,
    tearDownSnippetId: nullableId,
  },
  fieldDefaults: {
    environmentVariables: [],
    localSetupScript: null,
    localTearDownScript: null,
    setupSnippetId: null,
    tearDownSnippetId: null,
  },
  validate(cfg, refs) {
    for (const field of ['setupSnippetId', 'tearDownSnippetId'] as const) {
      const id = cfg[field] as number | null;
      if (id !== null && id !== undefined && !refs.snippetExists(id))
        return { field, rule: 'exists', message: `${field} names no snippet with id ${id}` };
    }
    return null;
  },
});
