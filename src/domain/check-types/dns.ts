// DNS monitors: one query to a name server, its answer asserted.

import { Type, type Static } from '@sinclair/typebox';
import { DNS_RECORD_TYPES, JSON_ASSERTION_COMPARISONS, TCP_FREQUENCIES } from '../limits.js';
import { assertion, declareCheckType, nullable, oneOf, targetOf, textTargets } from './declare.js';

const SOURCES = ['RESPONSE_CODE', 'RESPONSE_TIME', 'TEXT_ANSWER', 'JSON_ANSWER'] as const;

const request = Type.Object({
  recordType: oneOf(DNS_RECORD_TYPES),
  query: Type.String({ minLength: 1, maxLength: 100 }),
  nameServer: Type.Optional(nullable(Type.String({ maxLength: 100 }))),
  port: Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: 65535 }))),
  protocol: Type.Optional(oneOf(['UDP', 'TCP'])),
  assertions: Type.Optional(
    Type.Array(assertion(SOURCES, JSON_ASSERTION_COMPARISONS, targetOf<string | number | boolean>(['string', 'number', 'boolean']))),
  ),
});
export type DnsRequest = Static<typeof request>;

export default declareCheckType({
  path: 'dns',
  lane: 'uptime',
  takesScript: false,
  frequencies: TCP_FREQUENCIES,
  responseTimeMax: 5000,
  degradedDefault: 500,
  maxDefault: 1000,
  request,
  normaliseRequest: (r) => ({
    recordType: r.recordType,
    query: r.query,
    nameServer: r.nameServer || null,
    port: r.port ?? null,
    protocol: r.protocol ?? 'UDP',
    assertions: textTargets(r.assertions),
  }),
});
