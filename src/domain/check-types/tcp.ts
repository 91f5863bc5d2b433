// TCP checks: connect, optionally send data, assert on the answer.

import { Type, type Static } from '@sinclair/typebox';
import {
  ASSERTION_COMPARISONS,
  TCP_ASSERTION_SOURCES,
  TCP_DEGRADED_DEFAULT,
  TCP_FREQUENCIES,
  TCP_MAX_DEFAULT,
  TCP_RESPONSE_TIME_MAX,
} from '../limits.js';
import { assertion, declareCheckType, ipFamily, nullable, targetOf } from './declare.js';

const request = Type.Object({
  hostname: Type.String({ minLength: 1, maxLength: 2048 }),
  port: Type.Integer({ minimum: 1, maximum: 65535 }),
  data: Type.Optional(nullable(Type.String())),
  assertions: Type.Optional(
    Type.Array(assertion(TCP_ASSERTION_SOURCES, ASSERTION_COMPARISONS, targetOf<string | number>(['string', 'number']))),
  ),
  ipFamily: Type.Optional(ipFamily),
});
export type TcpRequest = Static<typeof request>;

export default declareCheckType({
  path: 'tcp',
  lane: 'uptime',
  takesScript: false,
  frequencies: TCP_FREQUENCIES,
  responseTimeMax: TCP_RESPONSE_TIME_MAX,
  degradedDefault: TCP_DEGRADED_DEFAULT,
  maxDefault: TCP_MAX_DEFAULT,
  request,
  normaliseRequest: (r) => ({
    hostname: r.hostname,
    port: r.port,
    data: r.data ?? null,
    assertions: r.assertions ?? [],
    ipFamily: r.ipFamily ?? 'IPv4',
  }),
});
