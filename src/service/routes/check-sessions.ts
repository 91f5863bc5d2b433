// Run checks now: check sessions (trigger, read, await completion, cancel) and trigger URLs.

import type { FastifyPluginAsync } from 'fastify';
import { randomBytes } from 'node:crypto';
import { ApiError, errorBody, notFound } from '../errors.js';
import type { Deps } from '../deps.js';

const AWAIT_MAX_SECONDS = 3030;
const AWAIT_DEFAULT_SECONDS = 30;
/** A trigger URL answers when its run is done; past this it answers with the run still going. */
const TRIGGER_WAIT_MS = 5 * 60_000;

const triggerBody = {
  type: 'object',
  properties: {
    target: {
      type: 'object',
      properties: {
        checkId: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 1000 },
        matchTags: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
      },
    },
    refreshCache: { type: 'boolean' },
  },
};
const sessionParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1 } } };
const completionQuery = {
  type: 'object',
  properties: { maxWaitSeconds: { type: 'integer', minimum: 1, maximum: AWAIT_MAX_SECONDS, default: AWAIT_DEFAULT_SECONDS } },
};
const checkParams = { type: 'object', required: ['checkId'], properties: { checkId: { type: 'string', minLength: 1 } } };
const tokenParams = {
  type: 'object',
  required: ['checkId', 'token'],
  properties: { checkId: { type: 'string' }, token: { type: 'string', maxLength: 200 } },
};

/** A check matches when it carries every tag of at least one group. */
export function matchesTags(tags: string[], groups: string[][]): boolean {
  return groups.some((g) => g.every((t) => tags.includes(t)));
}

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  const { sessions } = deps;

  app.post<{ Body: { target?: { checkId?: string[]; matchTags?: string[][] } } }>(
    '/v2/check-sessions/trigger',
    { schema: { body: triggerBody } },
    async (req, reply) => {
      const t = req.body.target ?? {};
      let rows = await deps.store.checks.runnable(req.accountId);
      if (t.checkId) rows = rows.filter((r) => t.checkId!.includes(r.id));
      if (t.matchTags) rows = rows.filter((r) => matchesTags(r.config.tags ?? [], t.matchTags!));
      if (rows.length === 0) throw new ApiError(404, 'No check matches the target', { target: t });
      const started = await sessions.start(rows, 'TRIGGER_API');
      const views = await Promise.all(started.map((s) => sessions.view(s)));
      return reply.code(201).send({ sessions: views.map(({ results: _r, ...rest }) => rest) });
    },
  );

  for (const v of ['v1', 'v2']) {
    app.get<{ Params: { id: string } }>(`/${v}/check-sessions/:id`, { schema: { params: sessionParams } }, async (req) => {
      const s = await sessions.get(req.accountId, req.params.id);
      if (!s) throw notFound('Check session', req.params.id);
      return sessions.view(s);
    });

    // Op 21: the record once final; while it still runs, 408 with Retry-After, to be asked again.
    app.get<{ Params: { id: string }; Querystring: { maxWaitSeconds: number } }>(
      `/${v}/check-sessions/:id/completion`,
      { schema: { params: sessionParams, querystring: completionQuery } },
      async (req, reply) => {
        const s = await sessions.waitFinal(req.accountId, req.params.id, req.query.maxWaitSeconds * 1000);
        if (s === 'missing') throw notFound('Check session', req.params.id);
        if (!s) {
          reply.header('Retry-After', '1');
          return reply.code(408).send(
            errorBody(408, `Check session ${req.params.id} is still running after ${req.query.maxWaitSeconds} s; ask again`, {
              checkSessionId: req.params.id,
            }),
          );
        }
        return sessions.view(s);
      },
    );
  }

  app.post<{ Params: { id: string } }>('/v1/check-sessions/:id/cancel', { schema: { params: sessionParams } }, async (req) => {
    const s = await sessions.cancel(req.accountId, req.params.id);
    if (!s) throw notFound('Check session', req.params.id);
    return sessions.view(s);
  });

  // Triggers (op 18): a secret URL that runs one check and answers with its outcome.
  const triggerView = (row: { check_id: string; token: string; created_at: Date }) => ({
    checkId: row.check_id,
    token: row.token,
    url: `${deps.baseUrl()}/checks/${row.check_id}/trigger/${row.token}`,
    created_at: row.created_at.toISOString(),
  });

  app.post<{ Params: { checkId: string } }>('/v1/triggers/checks/:checkId', { schema: { params: checkParams } }, async (req, reply) => {
    const check = await deps.store.checks.get(req.params.checkId, req.accountId);
    if (!check) throw notFound('Check', req.params.checkId);
    if (check.check_type === 'HEARTBEAT')
      throw new ApiError(400, 'A heartbeat check cannot be triggered: it waits for pings', { field: 'checkId', rule: 'runnable' });
    const existing = await deps.store.triggers.get(req.accountId, check.id);
    if (existing) return reply.code(200).send(triggerView(existing));
    const row = await deps.store.triggers.insert(req.accountId, check.id, randomBytes(24).toString('base64url'));
    return reply.code(201).send(triggerView(row));
  });

  app.get<{ Params: { checkId: string } }>('/v1/triggers/checks/:checkId', { schema: { params: checkParams } }, async (req) => {
    const row = await deps.store.triggers.get(req.accountId, req.params.checkId);
    if (!row) throw notFound('Trigger for check', req.params.checkId);
    return triggerView(row);
  });

  app.delete<{ Params: { checkId: string } }>('/v1/triggers/checks/:checkId', { schema: { params: checkParams } }, async (req, reply) => {
    if (!(await deps.store.triggers.delete(req.accountId, req.params.checkId))) throw notFound('Trigger for check', req.params.checkId);
    return reply.code(204).send();
  });

  const runTrigger = async (
    req: { params: { checkId: string; token: string } },
    reply: { code(n: number): { send(b: unknown): unknown } },
  ) => {
    const hit = await deps.store.triggers.checkByToken(req.params.checkId, req.params.token);
    if (!hit) throw notFound('Trigger', req.params.checkId);
    const outcome = await sessions.runToEnd(hit, TRIGGER_WAIT_MS);
    return reply.code(outcome.hasFailures ? 503 : 200).send(outcome);
  };
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url: '/checks/:checkId/trigger/:token',
      schema: { params: tokenParams },
      config: { auth: 'public' },
      handler: runTrigger as never,
    });
  }
};

export default plugin;
