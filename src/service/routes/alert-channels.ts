// Alert channels: where notifications go (email, Slack, webhooks, PagerDuty, Opsgenie, SMS,
// calls), and the checks and groups subscribed to each. Credentials in a channel's config are
// shown masked and kept when sent back as shown.

import type { FastifyPluginAsync } from 'fastify';
import { ALERT_CHANNEL_TYPES, configViolation, keepSecrets, showConfig, type AlertChannelType } from '../../domain/alert-channels.js';
import { PAGE_LIMIT_MAX, PAGE_MAX } from '../../domain/limits.js';
import { ApiError, notFound } from '../errors.js';
import type { Deps } from '../deps.js';
import { templateError } from '../notify/webhook.js';
import type { ChannelFields, ChannelRow, SubscriptionRow } from '../store/alert-channels.js';

const subscription = {
  type: 'object',
  required: ['activated'],
  additionalProperties: false,
  properties: {
    checkId: { anyOf: [{ type: 'string', format: 'uuid' }, { type: 'null' }] },
    groupId: { anyOf: [{ type: 'integer', minimum: 1, maximum: 2147483647 }, { type: 'null' }] },
    activated: { type: 'boolean' },
  },
};

const body = {
  type: 'object',
  required: ['type', 'config'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: [...ALERT_CHANNEL_TYPES] },
    config: { type: 'object' },
    subscriptions: { type: 'array', maxItems: 1000, items: subscription },
    sendRecovery: { type: 'boolean', default: true },
    sendFailure: { type: 'boolean', default: true },
    sendDegraded: { type: 'boolean', default: false },
    sslExpiry: { type: 'boolean', default: false },
    sslExpiryThreshold: { type: 'integer', minimum: 1, maximum: 30, default: 30 },
    autoSubscribe: { type: 'boolean', default: false },
  },
};
const params = { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647 } } };
const listQuery = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: PAGE_LIMIT_MAX, default: 10 },
    page: { type: 'integer', minimum: 1, maximum: PAGE_MAX, default: 1 },
  },
};

type Sub = { checkId?: string | null; groupId?: number | null; activated: boolean };
type Body = Omit<ChannelFields, 'type'> & { type: AlertChannelType; subscriptions?: Sub[] };

const viewSubscription = (s: SubscriptionRow) => ({
  id: Number(s.id),
  checkId: s.check_id,
  groupId: s.group_id === null ? null : Number(s.group_id),
  activated: Boolean(s.activated),
});

const view = (c: ChannelRow, subs: SubscriptionRow[]) => ({
  id: Number(c.id),
  type: c.type,
  config: showConfig(c.type, c.config),
  subscriptions: subs.filter((s) => Number(s.channel_id) === Number(c.id)).map(viewSubscription),
  sendRecovery: Boolean(c.send_recovery),
  sendFailure: Boolean(c.send_failure),
  sendDegraded: Boolean(c.send_degraded),
  sslExpiry: Boolean(c.ssl_expiry),
  sslExpiryThreshold: Number(c.ssl_expiry_threshold),
  autoSubscribe: Boolean(c.auto_subscribe),
  created_at: c.created_at.toISOString(),
  updated_at: c.updated_at ? c.updated_at.toISOString() : null,
});

/** Exactly one of checkId and groupId, naming something the account has. */
function subscriptionTarget(s: Sub): { checkId: string | null; groupId: number | null } {
  const checkId = s.checkId ?? null;
  const groupId = s.groupId ?? null;
  if ((checkId === null) === (groupId === null))
    throw new ApiError(400, 'A subscription names exactly one of checkId and groupId', { field: 'checkId', rule: 'oneOf' });
  return { checkId, groupId };
}

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  const fields = (b: Body, stored: ChannelRow | null): ChannelFields => {
    const config = keepSecrets(b.type, b.config, stored && stored.type === b.type ? stored.config : null);
    const wrong = configViolation(b.type, config);
    if (wrong) throw new ApiError(400, wrong.message, { field: wrong.field, rule: 'config' });
    if (b.type === 'WEBHOOK') {
      const parts: [string, unknown][] = [
        ['template', config.template],
        ['url', config.url],
        ...((config.headers as { key: string; value: string }[] | undefined) ?? []).map((h, i): [string, unknown] => [
          `headers[${i}]`,
          `${h.key}${h.value ?? ''}`,
        ]),
        ...((config.queryParameters as { key: string; value: string }[] | undefined) ?? []).map((q, i): [string, unknown] => [
          `queryParameters[${i}]`,
          `${q.key}${q.value ?? ''}`,
        ]),
      ];
      for (const [field, text] of parts) {
        const why = typeof text === 'string' ? templateError(text) : null;
        if (why)
          throw new ApiError(400, `config.${field} is not a Handlebars template Outpost can read: ${why}`, {
            field: `config.${field}`,
            rule: 'template',
          });
      }
    }
    return {
      type: b.type,
      config,
      sendRecovery: b.sendRecovery,
      sendFailure: b.sendFailure,
      sendDegraded: b.sendDegraded,
      sslExpiry: b.sslExpiry,
      sslExpiryThreshold: b.sslExpiryThreshold,
      autoSubscribe: b.autoSubscribe,
    };
  };
  const checkTargets = async (accountId: string, subs: Sub[]) => {
    const targets = subs.map((s) => ({ ...subscriptionTarget(s), activated: s.activated }));
    for (const t of targets) {
      if (t.checkId !== null && !(await deps.store.checks.get(t.checkId, accountId))) throw notFound('Check', t.checkId);
      if (t.groupId !== null && !deps.groups.get(accountId, t.groupId)) throw notFound('Check group', t.groupId);
    }
    return targets;
  };
  // Whether a group has subscriptions decides whether its alerting replaces its checks' own.
  const groupsChanged = async (targets: { groupId: number | null }[] | null, always = false) => {
    if (always || targets?.some((t) => t.groupId !== null)) await deps.groups.load();
  };
  const show = async (row: ChannelRow) => view(row, await deps.store.alertChannels.subscriptionsOfChannels([Number(row.id)]));

  app.get<{ Querystring: { limit: number; page: number } }>(
    '/v1/alert-channels',
    { schema: { querystring: listQuery } },
    async (req, reply) => {
      const { limit, page } = req.query;
      const offset = (page - 1) * limit;
      const { rows, total } = await deps.store.alertChannels.list(req.accountId, limit, offset);
      reply.header('Content-Range', rows.length ? `${offset}-${offset + rows.length - 1}/${total}` : `*/${total}`);
      const subs = await deps.store.alertChannels.subscriptionsOfChannels(rows.map((r) => Number(r.id)));
      return rows.map((r) => view(r, subs));
    },
  );

  app.post<{ Body: Body }>('/v1/alert-channels', { schema: { body } }, async (req, reply) => {
    const f = fields(req.body, null);
    const targets = req.body.subscriptions ? await checkTargets(req.accountId, req.body.subscriptions) : null;
    const row = await deps.store.tx(async (tx) => {
      const r = await tx.alertChannels.insert(req.accountId, f);
      if (targets) await tx.alertChannels.setForChannel(Number(r.id), targets);
      return r;
    });
    await groupsChanged(targets);
    return reply.code(201).send(await show(row));
  });

  app.get<{ Params: { id: number } }>('/v1/alert-channels/:id', { schema: { params } }, async (req) => {
    const row = await deps.store.alertChannels.get(req.accountId, req.params.id);
    if (!row) throw notFound('Alert channel', req.params.id);
    return show(row);
  });

  app.put<{ Params: { id: number }; Body: Body }>('/v1/alert-channels/:id', { schema: { params, body } }, async (req) => {
    const stored = await deps.store.alertChannels.get(req.accountId, req.params.id);
    if (!stored) throw notFound('Alert channel', req.params.id);
    const f = fields(req.body, stored);
    const targets = req.body.subscriptions ? await checkTargets(req.accountId, req.body.subscriptions) : null;
    const row = await deps.store.tx(async (tx) => {
      const r = (await tx.alertChannels.update(req.accountId, req.params.id, f))!;
      if (targets) await tx.alertChannels.setForChannel(req.params.id, targets);
      return r;
    });
    await groupsChanged(targets, true);
    return show(row);
  });

  app.delete<{ Params: { id: number } }>('/v1/alert-channels/:id', { schema: { params } }, async (req, reply) => {
    if (!(await deps.store.alertChannels.delete(req.accountId, req.params.id))) throw notFound('Alert channel', req.params.id);
    await groupsChanged(null, true);
    return reply.code(204).send();
  });

  app.put<{ Params: { id: number }; Body: Sub }>(
    '/v1/alert-channels/:id/subscriptions',
    { schema: { params, body: subscription } },
    async (req) => {
      if (!(await deps.store.alertChannels.get(req.accountId, req.params.id))) throw notFound('Alert channel', req.params.id);
      const [target] = await checkTargets(req.accountId, [req.body]);
      const row = await deps.store.alertChannels.subscribe(req.params.id, target!);
      await groupsChanged([target!]);
      return viewSubscription(row);
    },
  );
};

/** A from/to window in unix seconds, at most `maxSeconds` wide, ending now by default. */
function windowOf(q: { from?: number; to?: number }, maxSeconds: number): { from: Date; to: Date } {
  const to = q.to ?? Math.floor(Date.now() / 1000);
  const from = q.from ?? to - maxSeconds;
  if (from > to) throw new ApiError(400, 'from must not be after to', { field: 'from', rule: 'order' });
  if (to - from > maxSeconds)
    throw new ApiError(400, `from and to may be at most ${maxSeconds / 3600} hours apart`, { field: 'from', rule: 'window' });
  return { from: new Date(from * 1000), to: new Date(to * 1000 + 999) };
}

const windowQuery = (extra: Record<string, unknown>) => ({
  type: 'object',
  properties: {
    from: { type: 'integer', minimum: 0, maximum: 253402300799 },
    to: { type: 'integer', minimum: 0, maximum: 253402300799 },
    limit: { type: 'integer', minimum: 1, maximum: PAGE_LIMIT_MAX, default: 10 },
    page: { type: 'integer', minimum: 1, maximum: PAGE_MAX, default: 1 },
    ...extra,
  },
});

/** What was sent (the outbox's record of each attempt) and what was raised. */
export const alertHistory: FastifyPluginAsync<Deps> = async (app, deps) => {
  app.get<{ Querystring: { from?: number; to?: number; limit: number; page: number; alertChannelId?: number; hasFailures?: boolean } }>(
    '/v1/alert-notifications',
    {
      schema: {
        querystring: windowQuery({
          alertChannelId: { type: 'integer', minimum: 1, maximum: 2147483647 },
          hasFailures: { type: 'boolean' },
        }),
      },
    },
    async (req) => {
      const q = req.query;
      const rows = await deps.store.alerts.notifications(
        req.accountId,
        { ...windowOf(q, 24 * 3600), channelId: q.alertChannelId, hasFailures: q.hasFailures },
        q.limit,
        (q.page - 1) * q.limit,
      );
      return rows.map((n) => ({
        id: n.id,
        type: n.type,
        status: n.status,
        alertConfig: n.type && n.config ? showConfig(n.type, n.config) : null,
        notificationResult: n.notification_result,
        timestamp: n.created_at.toISOString(),
        checkType: n.check_type,
        checkId: n.check_id,
        checkAlertId: n.check_alert_id,
        alertChannelId: Number(n.channel_id),
        checkResultId: n.check_result_id,
        alertType: n.alert_type,
      }));
    },
  );

  const alerts = async (accountId: string, q: { from?: number; to?: number; limit: number; page: number }, checkId?: string) =>
    (await deps.store.alerts.checkAlerts(accountId, { ...windowOf(q, 6 * 3600), checkId }, q.limit, (q.page - 1) * q.limit)).map((a) => ({
      id: a.id,
      name: a.name,
      checkId: a.check_id,
      alertType: a.alert_type,
      checkType: a.check_type,
      runLocation: a.run_location,
      responseTime: a.response_time,
      error: a.error,
      statusCode: a.status_code,
      created_at: a.created_at.toISOString(),
      startedAt: a.started_at ? a.started_at.toISOString() : null,
    }));
  app.get<{ Querystring: { from?: number; to?: number; limit: number; page: number } }>(
    '/v1/check-alerts',
    { schema: { querystring: windowQuery({}) } },
    async (req) => alerts(req.accountId, req.query),
  );
  app.get<{ Params: { checkId: string }; Querystring: { from?: number; to?: number; limit: number; page: number } }>(
    '/v1/check-alerts/:checkId',
    {
      schema: {
        querystring: windowQuery({}),
        params: { type: 'object', required: ['checkId'], properties: { checkId: { type: 'string', minLength: 1 } } },
      },
    },
    async (req) => {
      if (!(await deps.store.checks.get(req.params.checkId, req.accountId))) throw notFound('Check', req.params.checkId);
      return alerts(req.accountId, req.query, req.params.checkId);
    },
  );
};

export default plugin;
