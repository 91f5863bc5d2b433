// ICMP monitors: POST /v1/checks/icmp, PUT /v1/checks/icmp/{id}.

import { ICMP_ASSERTION_COMPARISONS, TCP_FREQUENCIES } from '../../domain/limits.js';
import { checkTypeRoutes } from './check-type.js';

const assertion = {
  type: 'object',
  required: ['source', 'comparison'],
  properties: {
    source: { type: 'string', enum: ['LATENCY', 'JSON_RESPONSE'] },
    comparison: { type: 'string', enum: ICMP_ASSERTION_COMPARISONS },
    property: { type: 'string', default: '' },
    target: { type: ['string', 'number'], default: '' },
    regex: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null },
  },
};

export default checkTypeRoutes({
  checkType: 'ICMP',
  frequencies: TCP_FREQUENCIES,
  responseTimeMax: 300_000,
  degradedDefault: 10_000,
  maxDefault: 20_000,
  requestProperties: {
    hostname: { type: 'string', minLength: 1, maxLength: 2048, pattern: '^[^\\s-][^\\s]*$' },
    ipFamily: { anyOf: [{ type: 'string', enum: ['IPv4', 'IPv6'] }, { type: 'null' }] },
    pingCount: { anyOf: [{ type: 'integer', minimum: 1, maximum: 50 }, { type: 'null' }] },
    assertions: { type: 'array', items: assertion },
  },
  requestRequired: ['hostname'],
  normaliseRequest: (r) => ({
    hostname: r.hostname,
    ipFamily: r.ipFamily ?? 'IPv4',
    pingCount: r.pingCount ?? 10,
    assertions: ((r.assertions as { target: unknown }[] | undefined) ?? []).map((a) => ({ ...a, target: String(a.target) })),
  }),
});
