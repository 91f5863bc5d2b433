// URL monitors: one GET, its status code asserted.

import { Type, type Static } from '@sinclair/typebox';
import { TCP_FREQUENCIES, URL_ASSERTION_COMPARISONS, URL_RESPONSE_TIME_MAX } from '../limits.js';
import { assertion, declareCheckType, ipFamily, oneOf, textTargets } from './declare.js';

const statusCode = Type.Union([Type.String({ pattern: '^\\s*\\d{1,3}\\s*$' }), Type.Integer({ minimum: 100, maximum: 999 })]);

const request = Type.Object({
  method: Type.Optional(oneOf(['GET'])),
  url: Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://[^\\s/$.?#][^\\s]*$' }),
  followRedirects: Type.Optional(Type.Boolean()),
  skipSSL: Type.Optional(Type.Boolean()),
  ipFamily: Type.Optional(ipFamily),
  assertions: Type.Optional(Type.Array(assertion(['STATUS_CODE'], URL_ASSERTION_COMPARISONS, statusCode, { targetRequired: true }))),
});
export type UrlRequest = Static<typeof request>;

export default declareCheckType({
  path: 'url',
  lane: 'uptime',
  takesScript: false,
  frequencies: TCP_FREQUENCIES,
  responseTimeMax: URL_RESPONSE_TIME_MAX,
  degradedDefault: 3000,
  maxDefault: 5000,
  request,
  normaliseRequest: (r) => ({
    method: 'GET' as const,
    url: r.url,
    followRedirects: r.followRedirects ?? true,
    skipSSL: r.skipSSL ?? false,
    ipFamily: r.ipFamily ?? 'IPv4',
    assertions: textTargets(r.assertions, true),
  }),
});
