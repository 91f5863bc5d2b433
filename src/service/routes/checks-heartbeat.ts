// Heartbeat checks: POST /v1/checks/heartbeat (op 3), PUT /v1/checks/heartbeat/{id}, and the
// ping address the monitored job calls: GET, POST or HEAD {PING_URL}/<pingToken>.

import { insertCheck, showCheck, subscriptionsToSave, updateCheck } from '../check-alerting.js';
import type { Subscription } from '../store/alert-channels.js';
import type { FastifyPluginAsync } from 'fastify';
import { randomUUID } from 'node:crypto';
import {
  type CheckBody,
  commonCheckProperties,
  autoAssignQuery,
  idParams,
  newCheckConfig,
  mergeCheckConfig,
  assertValidCheck,
} from './check-fields.js';
import type { CheckConfig, CheckRow } from '../store/checks.js';
import { periodOf, graceOf, type HeartbeatSpec } from '../heartbeats.js';
import { ApiError, notFound } from '../errors.js';
import type { Deps } from '../deps.js';

const HEARTBEAT_RESPONSE_MAX = 300_000;
const MAX_SPAN_MS = 365 * 86_400_000;
const units = { type: 'string', enum: ['seconds', 'minutes', 'hours', 'days'] };
const heartbeat = {
  type: 'object',
  required: ['period', 'periodUnit', 'grace', 'graceUnit'],
  properties: {
    period: { type: 'number', exclusiveMinimum: 0 },
    periodUnit: units,
    grace: { type: 'number', minimum: 0 },
    graceUnit: units,
    pingToken: { anyOf: [{ type: 'string', format: 'uuid' }, { type: 'null' }] },
  },
};
const responseTime = { anyOf: [{ type: 'number', minimum: 0, maximum: HEARTBEAT_RESPONSE_MAX }, { type: 'null' }] };
const properties = {
  ...commonCheckProperties,
  checkType: { type: 'string', enum: ['HEARTBEAT'] },
  frequency: { type: 'integer', minimum: 0 },
  degradedResponseTime: responseTime,
  maxResponseTime: responseTime,
  script: { type: 'string' },
  heartbeat,
};
const KNOWN = new Set(Object.keys(properties));
const createSchema = { querystring: autoAssignQuery, body: { type: 'object', required: ['name', 'heartbeat', 'script'], properties } };
const updateSchema = {
  params: idParams,
  querystring: autoAssignQuery,
  body: { type: 'object', properties: { ...properties, heartbeat: { ...heartbeat, required: [] } } },
};
const pingParams = { type: 'object', required: ['token'], properties: { token: { type: 'string', maxLength: 100 } } };

const tokenInUse = () => new ApiError(409, 'heartbeat.pingToken is already in use', { field: 'heartbeat.pingToken', rule: 'unique' });

function checkSpan(h: HeartbeatSpec): void {
  const period = periodOf(h);
  if (period < 1000 || period > MAX_SPAN_MS)
    throw new ApiError(400, 'heartbeat.period must be from 1 second to 365 days', { field: 'heartbeat.period', rule: 'range' });
  if (graceOf(h) > MAX_SPAN_MS)
    throw new ApiError(400, 'heartbeat.grace must be at most 365 days', { field: 'heartbeat.grace', rule: 'range' });
}

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  const show = (row: CheckRow) => showCheck(deps.store, row, deps.pingBase());
  const sentSubscriptions = (b: CheckBody) => b.alertChannelSubscriptions as Subscription[] | undefined;

  app.post<{ Body: CheckBody; Querystring: { autoAssignAlerts: boolean } }>(
    '/v1/checks/heartbeat',
    { schema: createSchema },
    async (req, reply) => {
      const cfg: CheckConfig = { ...newCheckConfig(req.body, { degradedResponseTime: 10_000, maxResponseTime: 20_000 }), request: {} };
      const heartbeat = req.body.heartbeat as Partial<HeartbeatSpec>;
      const pingToken = heartbeat.pingToken ?? randomUUID();
      cfg.heartbeat = { ...heartbeat, pingToken };
      cfg.script = req.body.script;
      checkSpan(cfg.heartbeat as HeartbeatSpec);
      await assertValidCheck(deps, req.accountId, cfg);
      const subs = await subscriptionsToSave(deps.store, req.accountId, sentSubscriptions(req.body), {
        create: true,
        autoAssign: req.query.autoAssignAlerts,
      });
      const row = await insertCheck(deps.store, { accountId: req.accountId, checkType: 'HEARTBEAT', config: cfg }, subs, async (tx) => {
        if (await tx.heartbeats.tokenTaken(pingToken)) throw tokenInUse();
      });
      await deps.heartbeats.upsert(row);
      return reply.code(201).send(await show(row));
    },
  );

  app.put<{ Params: { id: string }; Body: CheckBody }>('/v1/checks/heartbeat/:id', { schema: updateSchema }, async (req) => {
    const stored = await deps.store.checks.get(req.params.id, req.accountId);
    if (!stored) throw notFound('Check', req.params.id);
    if (stored.check_type !== 'HEARTBEAT')
      throw new ApiError(400, `Check ${stored.id} is a ${stored.check_type} check, not HEARTBEAT`, { field: 'checkType', rule: 'matches' });
    const { heartbeat: hb, ...rest } = req.body;
    const cfg = mergeCheckConfig(stored.config, rest, KNOWN);
    cfg.heartbeat = { ...(stored.config.heartbeat as object), ...(hb ?? {}) };
    if (!(cfg.heartbeat as HeartbeatSpec).pingToken)
      (cfg.heartbeat as HeartbeatSpec).pingToken = (stored.config.heartbeat as HeartbeatSpec).pingToken;
    checkSpan(cfg.heartbeat as HeartbeatSpec);
    await assertValidCheck(deps, req.accountId, cfg);
    // Refused before anything is written: the check stays as it was.
    const token = (cfg.heartbeat as HeartbeatSpec).pingToken;
    if (token && (await deps.store.heartbeats.tokenTaken(token, stored.id))) throw tokenInUse();
    const subs = await subscriptionsToSave(deps.store, req.accountId, sentSubscriptions(req.body), { create: false, autoAssign: false });
    const row = await updateCheck(deps.store, stored.id, req.accountId, cfg, subs);
    await deps.heartbeats.upsert(row);
    return show(row);
  });

  const ping = async (
    req: { params: { token: string }; method: string; ip: string },
    reply: { code(n: number): { send(b?: unknown): unknown } },
  ) => {
    if (!(await deps.heartbeats.ping(req.params.token, { method: req.method, source: req.ip })))
      throw notFound('Heartbeat', req.params.token);
    return reply.code(200).send(req.method === 'HEAD' ? undefined : { ok: true });
  };
  for (const method of ['GET', 'POST'] as const) {
    // HEAD comes with GET in Fastify.
    app.route({ method, url: '/ping/:token', schema: { params: pingParams }, config: { auth: 'public' }, handler: ping as never });
  }
};

export default plugin;
