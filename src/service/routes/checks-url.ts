// URL checks (URL monitors): POST /v1/checks/url, PUT /v1/checks/url/{id}.

import { TCP_FREQUENCIES, URL_RESPONSE_TIME_MAX, URL_ASSERTION_COMPARISONS } from '../../domain/limits.js';
import { checkTypeRoutes } from './check-type.js';

const assertion = {
  type: 'object',
  required: ['source', 'comparison', 'target'],
  properties: {
    source: { type: 'string', enum: ['STATUS_CODE'] },
    comparison: { type: 'string', enum: [...URL_ASSERTION_COMPARISONS] },
    property: { type: 'string', default: '' },
    target: {
      anyOf: [
        { type: 'string', pattern: '^\\s*\\d{1,3}\\s*$' },
        { type: 'integer', minimum: 100, maximum: 999 },
      ],
    },
    regex: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null },
  },
};

export default checkTypeRoutes({
  checkType: 'URL',
  frequencies: TCP_FREQUENCIES,
  responseTimeMax: URL_RESPONSE_TIME_MAX,
  degradedDefault: 3000,
  maxDefault: 5000,
  requestProperties: {
    method: { type: 'string', enum: ['GET'] },
    url: { type: 'string', minLength: 1, maxLength: 2048, pattern: '^https?://[^\\s/$.?#][^\\s]*$' },
    followRedirects: { type: 'boolean' },
    skipSSL: { type: 'boolean' },
    ipFamily: { type: 'string', enum: ['IPv4', 'IPv6'] },
    assertions: { type: 'array', items: assertion },
  },
  requestRequired: ['url'],
  normaliseRequest: (r) => ({
    method: 'GET',
    url: r.url,
    followRedirects: r.followRedirects ?? true,
    skipSSL: r.skipSSL ?? false,
    ipFamily: r.ipFamily ?? 'IPv4',
    assertions: ((r.assertions as { target: unknown }[] | undefined) ?? []).map((a) => ({ ...a, target: String(a.target).trim() })),
  }),
});
