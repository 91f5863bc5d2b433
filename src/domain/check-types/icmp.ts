// ICMP monitors: pings, their latency and loss asserted.

import { Type, type Static } from '@sinclair/typebox';
import { ICMP_ASSERTION_COMPARISONS, TCP_FREQUENCIES } from '../limits.js';
import { assertion, declareCheckType, ipFamily, nullable, targetOf, textTargets } from './declare.js';

const request = Type.Object({
  hostname: Type.String({ minLength: 1, maxLength: 2048, pattern: '^[^\\s-][^\\s]*$' }),
  ipFamily: Type.Optional(nullable(ipFamily)),
  pingCount: Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: 50 }))),
  assertions: Type.Optional(
    Type.Array(assertion(['LATENCY', 'JSON_RESPONSE'], ICMP_ASSERTION_COMPARISONS, targetOf<string | number>(['string', 'number']))),
  ),
});
export type IcmpRequest = Static<typeof request>;

export default declareCheckType({
  path: 'icmp',
  lane: 'uptime',
  takesScript: false,
  frequencies: TCP_FREQUENCIES,
  responseTimeMax: 300_000,
  degradedDefault: 10_000,
  maxDefault: 20_000,
  request,
  normaliseRequest: (r) => ({
    hostname: r.hostname,
    ipFamily: r.ipFamily ?? 'IPv4',
    pingCount: r.pingCount ?? 10,
    assertions: textTargets(r.assertions),
  }),
});
