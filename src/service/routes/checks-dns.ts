// DNS monitors: POST /v1/checks/dns, PUT /v1/checks/dns/{id}.

import { TCP_FREQUENCIES, DNS_RECORD_TYPES, JSON_ASSERTION_COMPARISONS } from '../../domain/limits.js';
import { checkTypeRoutes } from './check-type.js';

const assertion = {
  type: 'object',
  required: ['source', 'comparison'],
  properties: {
    source: { type: 'string', enum: ['RESPONSE_CODE', 'RESPONSE_TIME', 'TEXT_ANSWER', 'JSON_ANSWER'] },
    comparison: { type: 'string', enum: [...JSON_ASSERTION_COMPARISONS] },
    property: { type: 'string', default: '' },
    target: { type: ['string', 'number', 'boolean'], default: '' },
    regex: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null },
  },
};

export default checkTypeRoutes({
  checkType: 'DNS',
  frequencies: TCP_FREQUENCIES,
  responseTimeMax: 5000,
  degradedDefault: 500,
  maxDefault: 1000,
  requestProperties: {
    recordType: { type: 'string', enum: [...DNS_RECORD_TYPES] },
    query: { type: 'string', minLength: 1, maxLength: 100 },
    nameServer: { anyOf: [{ type: 'string', maxLength: 100 }, { type: 'null' }] },
    port: { anyOf: [{ type: 'integer', minimum: 1, maximum: 65535 }, { type: 'null' }] },
    protocol: { type: 'string', enum: ['UDP', 'TCP'] },
    assertions: { type: 'array', items: assertion },
  },
  requestRequired: ['recordType', 'query'],
  normaliseRequest: (r) => ({
    recordType: r.recordType,
    query: r.query,
    nameServer: r.nameServer || null,
    port: r.port ?? null,
    protocol: r.protocol ?? 'UDP',
    assertions: ((r.assertions as { target: unknown }[] | undefined) ?? []).map((a) => ({ ...a, target: String(a.target) })),
  }),
});
