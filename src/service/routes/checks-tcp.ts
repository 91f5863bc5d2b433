// TCP checks: POST /v1/checks/tcp, PUT /v1/checks/tcp/{id}.

import {
  TCP_FREQUENCIES,
  TCP_RESPONSE_TIME_MAX,
  TCP_DEGRADED_DEFAULT,
  TCP_MAX_DEFAULT,
  TCP_ASSERTION_SOURCES,
  ASSERTION_COMPARISONS,
} from '../../domain/limits.js';
import { checkTypeRoutes } from './check-type.js';

const assertion = {
  type: 'object',
  required: ['source', 'comparison'],
  properties: {
    source: { type: 'string', enum: [...TCP_ASSERTION_SOURCES] },
    comparison: { type: 'string', enum: [...ASSERTION_COMPARISONS] },
    property: { type: 'string', default: '' },
    target: { type: ['string', 'number'], default: '' },
    regex: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null },
  },
};

export default checkTypeRoutes({
  checkType: 'TCP',
  frequencies: TCP_FREQUENCIES,
  responseTimeMax: TCP_RESPONSE_TIME_MAX,
  degradedDefault: TCP_DEGRADED_DEFAULT,
  maxDefault: TCP_MAX_DEFAULT,
  requestProperties: {
    hostname: { type: 'string', minLength: 1, maxLength: 2048 },
    port: { type: 'integer', minimum: 1, maximum: 65535 },
    data: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    assertions: { type: 'array', items: assertion },
    ipFamily: { type: 'string', enum: ['IPv4', 'IPv6'] },
  },
  requestRequired: ['hostname', 'port'],
  normaliseRequest: (r) => ({
    hostname: r.hostname,
    port: r.port,
    data: r.data ?? null,
    assertions: r.assertions ?? [],
    ipFamily: r.ipFamily ?? 'IPv4',
  }),
});
