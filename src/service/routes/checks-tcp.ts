// TCP checks: POST /v1/checks/tcp, PUT /v1/checks/tcp/{id}.

import type { FastifyPluginAsync } from 'fastify';
import { randomUUID } from 'node:crypto';
import {
  TCP_FREQUENCIES, TCP_RESPONSE_TIME_MAX, TCP_DEGRADED_DEFAULT, TCP_MAX_DEFAULT,
  TCP_ASSERTION_SOURCES, ASSERTION_COMPARISONS,
} from '../../domain/limits.js';
import { commonCheckProperties, autoAssignQuery, idParams, newCheckConfig, mergeCheckConfig, assertValidCheck } from './check-fields.js';
import { insertCheck, updateCheck, getCheck, toApi } from '../store/checks.js';
import { ApiError, notFound } from '../errors.js';
import type { Deps } from '../deps.js';

const responseTime = { anyOf: [{ type: 'number', minimum: 0, maximum: TCP_RESPONSE_TIME_MAX }, { type: 'null' }] };

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

const requestProperties = {
  hostname: { type: 'string', minLength: 1, maxLength: 2048 },
  port: { type: 'integer', minimum: 1, maximum: 65535 },
  data: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  assertions: { type: 'array', items: assertion },
  ipFamily: { type: 'string', enum: ['IPv4', 'IPv6'] },
};

const tcpProperties = {
  ...commonCheckProperties,
  checkType: { type: 'string', enum: ['TCP'] },
  frequency: { type: 'integer', enum: [...TCP_FREQUENCIES] },
  degradedResponseTime: responseTime,
  maxResponseTime: responseTime,
};

const createSchema = {
  querystring: autoAssignQuery,
  body: {
    type: 'object',
    required: ['name', 'request'],
    properties: { ...tcpProperties, request: { type: 'object', required: ['hostname', 'port'], properties: requestProperties } },
  },
};

const updateSchema = {
  params: idParams,
  querystring: autoAssignQuery,
  body: { type: 'object', properties: { ...tcpProperties, request: { type: 'object', properties: requestProperties } } },
};

function normaliseRequest(req: Record<string, unknown>) {
  return { hostname: req.hostname, port: req.port, data: req.data ?? null, assertions: req.assertions ?? [], ipFamily: req.ipFamily ?? 'IPv4' };
}

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  app.post<{ Body: Record<string, any> }>('/v1/checks/tcp', { schema: createSchema }, async (req, reply) => {
    const cfg = newCheckConfig(req.body, { frequency: 10, degradedResponseTime: TCP_DEGRADED_DEFAULT, maxResponseTime: TCP_MAX_DEFAULT });
    cfg.request = normaliseRequest(req.body.request);
    await assertValidCheck(deps.db, req.accountId, cfg);
    const row = await insertCheck(deps.db, { id: randomUUID(), account_id: req.accountId, check_type: 'TCP', name: cfg.name, activated: cfg.activated, config: cfg });
    await deps.scheduler.upsert(row);
    return reply.code(201).send(toApi(row));
  });

  app.put<{ Params: { id: string }; Body: Record<string, any> }>('/v1/checks/tcp/:id', { schema: updateSchema }, async (req) => {
    const stored = await getCheck(deps.db, req.params.id, req.accountId);
    if (!stored) throw notFound('Check', req.params.id);
    if (stored.check_type !== 'TCP') throw new ApiError(400, `Check ${stored.id} is a ${stored.check_type} check, not TCP`, { field: 'checkType', rule: 'matches' });
    const cfg = mergeCheckConfig(stored.config, req.body);
    cfg.request = normaliseRequest(cfg.request);
    await assertValidCheck(deps.db, req.accountId, cfg);
    const row = (await updateCheck(deps.db, stored.id, req.accountId, cfg))!;
    await deps.scheduler.upsert(row);
    return toApi(row);
  });
};

export default plugin;
