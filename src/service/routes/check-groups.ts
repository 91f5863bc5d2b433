// Check groups: create (v2 and v1), read, update, delete; their member checks with the group's
// settings applied; trigger URLs that run every member, `concurrency` at a time.

import type { FastifyPluginAsync } from 'fastify';
import { randomBytes } from 'node:crypto';
import { groupDefaults, runOrder, type GroupConfig } from '../../domain/check-groups.js';
import { resolveVariables, showVariables, type CheckVariable } from '../../domain/check-variables.js';
import { CHECK_TYPES } from '../../domain/check-types/index.js';
import { textTargets } from '../../domain/check-types/declare.js';
import { environmentVariable } from '../../domain/check-types/fields.js';
import { LOCATIONS, PAGE_LIMIT_MAX, PAGE_MAX, RUNTIME_IDS } from '../../domain/limits.js';
import { runtimeViolation } from '../../domain/runtimes.js';
import { showChecks, subscriptionsToSave } from '../check-alerting.js';
import type { Deps } from '../deps.js';
import { ApiError, notFound } from '../errors.js';
import type { Subscription } from '../store/alert-channels.js';
import type { GroupRow, GroupTriggerRow } from '../store/check-groups.js';
import type { CheckRow } from '../store/checks.js';
import {
  DEFAULT_ALERT_SETTINGS,
  alertSettingsSchema,
  assertPrivateLocations,
  autoAssignQuery,
  commonCheckProperties,
  retryStrategySchema,
} from './check-fields.js';

/** Members at most; a larger group would not fit one trigger answer anyway. */
const GROUP_ENV_MAX = 100;
/** A group run answers once every member is done; past this a member counts as failed. */
const RUN_WAIT_MS = 5 * 60_000;

const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
const keyValue = {
  type: 'object',
  required: ['key', 'value'],
  properties: { key: { type: 'string', minLength: 1 }, value: { type: 'string' }, locked: { type: 'boolean' } },
};
const apiRequest = CHECK_TYPES.API.request.properties;
const apiCheckDefaults = {
  type: 'object',
  properties: {
    url: nullable({ type: 'string', maxLength: 2048 }),
    headers: { type: 'array', items: keyValue },
    queryParameters: { type: 'array', items: keyValue },
    assertions: apiRequest.assertions,
    basicAuth: apiRequest.basicAuth,
  },
};
const snippetId = nullable({ type: 'integer', minimum: 1 });
const groupProperties = {
  name: { type: 'string', minLength: 1, maxLength: 255 },
  activated: { type: 'boolean' },
  muted: { type: 'boolean' },
  tags: { type: 'array', items: { type: 'string', minLength: 1 } },
  locations: nullable({ type: 'array', uniqueItems: true, items: { type: 'string', enum: [...LOCATIONS] } }),
  privateLocations: nullable({ type: 'array', uniqueItems: true, items: { type: 'string', minLength: 1 } }),
  concurrency: { type: 'integer', minimum: 1, maximum: 1000 },
  apiCheckDefaults,
  browserCheckDefaults: { anyOf: [{ type: 'string' }, { type: 'object' }, { type: 'null' }] },
  runtimeId: nullable({ type: 'string', enum: [...RUNTIME_IDS] }),
  environmentVariables: nullable({ type: 'array', maxItems: GROUP_ENV_MAX, items: environmentVariable }),
  alertChannelSubscriptions: commonCheckProperties.alertChannelSubscriptions,
  setupSnippetId: snippetId,
  tearDownSnippetId: snippetId,
  localSetupScript: nullable({ type: 'string' }),
  localTearDownScript: nullable({ type: 'string' }),
  runParallel: nullable({ type: 'boolean' }),
  alertSettings: nullable(alertSettingsSchema),
  retryStrategy: { anyOf: [retryStrategySchema, { type: 'string', enum: ['FALLBACK'] }] },
  useGlobalAlertSettings: nullable({ type: 'boolean' }),
  doubleCheck: { type: 'boolean' },
};
type GroupBody = Partial<Omit<GroupConfig, 'version'>> & { alertChannelSubscriptions?: Subscription[] };
const FIELDS = Object.keys(groupProperties).filter((k) => k !== 'alertChannelSubscriptions') as (keyof GroupBody)[];

const createBody = { type: 'object', required: ['name'], properties: groupProperties };
const updateBody = { type: 'object', properties: groupProperties };
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647 } } };
const memberParams = {
  type: 'object',
  required: ['groupId', 'checkId'],
  properties: { groupId: { type: 'integer', minimum: 1, maximum: 2147483647 }, checkId: { type: 'string', minLength: 1 } },
};
const groupIdParams = { type: 'object', required: ['groupId'], properties: { groupId: memberParams.properties.groupId } };
const tokenParams = {
  type: 'object',
  required: ['groupId', 'token'],
  properties: { groupId: memberParams.properties.groupId, token: { type: 'string', maxLength: 200 } },
};
const pageQuery = {
  limit: { type: 'integer', minimum: 1, maximum: PAGE_LIMIT_MAX, default: 10 },
  page: { type: 'integer', minimum: 1, maximum: PAGE_MAX, default: 1 },
};
const strings = { type: 'array', items: { type: 'string' } };
const listQuery = { type: 'object', properties: { ...pageQuery, tag: strings, 'tag[]': strings, name: strings, 'name[]': strings } };
const membersQuery = { type: 'object', properties: pageQuery };

/** A page of a list, and its Content-Range. */
function paged<T>(all: T[], limit: number, page: number): { rows: T[]; range: string } {
  const offset = (page - 1) * limit;
  const rows = all.slice(offset, offset + limit);
  return { rows, range: rows.length ? `${offset}-${offset + rows.length - 1}/${all.length}` : `*/${all.length}` };
}

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  const { store, groups } = deps;

  const show = async (row: GroupRow) => {
    const c = row.config;
    const [subs, members] = await Promise.all([
      store.alertChannels.ofGroups([Number(row.id)]),
      store.checkGroups.members(row.account_id, Number(row.id)),
    ]);
    const { version: _v, ...fields } = c;
    return {
      id: Number(row.id),
      ...fields,
      runParallel: c.runParallel ?? false,
      alertSettings: c.alertSettings ?? DEFAULT_ALERT_SETTINGS,
      environmentVariables: showVariables(c.environmentVariables),
      alertChannelSubscriptions: subs.map((s) => ({ alertChannelId: Number(s.channel_id), activated: Boolean(s.activated) })),
      checks: members.map((m) => m.id),
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at ? row.updated_at.toISOString() : null,
    };
  };

  const showMembers = (rows: CheckRow[]) => showChecks(deps, rows, true);

  /**
   * Refuses what names another resource that does not exist, or a runtime that cannot be pinned;
   * spells assertions as checks do (targets as text).
   */
  const assertRefs = async (accountId: string, c: GroupConfig, stored: GroupConfig | null) => {
    c.locations ??= [];
    c.apiCheckDefaults = { ...c.apiCheckDefaults, assertions: textTargets(c.apiCheckDefaults.assertions) };
    if (c.runtimeId) {
      const why = runtimeViolation(deps.runtimes, c.runtimeId, { isNew: !stored, changed: stored?.runtimeId !== c.runtimeId });
      if (why) throw new ApiError(400, why, { field: 'runtimeId', rule: 'runtime' });
    }
    for (const field of ['setupSnippetId', 'tearDownSnippetId'] as const) {
      const id = c[field];
      if (id !== null && deps.snippets.script(accountId, id) === null)
        throw new ApiError(400, `${field} names no snippet with id ${id}`, { field, rule: 'exists' });
    }
    await assertPrivateLocations(store.privateLocations, accountId, c.privateLocations);
    const { vars, missing: key } = resolveVariables(c.environmentVariables, stored?.environmentVariables);
    if (key !== undefined)
      throw new ApiError(400, `environmentVariables: ${key} needs a value (null keeps the stored value of a secret only)`, {
        field: 'environmentVariables',
        rule: 'value',
      });
    c.environmentVariables = (vars ?? null) as CheckVariable[] | null;
  };

  /** Members run as the group now says: the scheduler takes each one again. */
  const reschedule = async (accountId: string, id: number) => {
    for (const m of await store.checkGroups.members(accountId, id)) await deps.scheduler.upsert(m);
  };

  const create =
    (version: 1 | 2) =>
    async (
      req: { body: GroupBody; query: { autoAssignAlerts: boolean }; accountId: string },
      reply: { code(n: number): { send(b: unknown): unknown } },
    ) => {
      const cfg: GroupConfig = { ...groupDefaults(version), name: req.body.name! };
      for (const k of FIELDS) if (req.body[k] !== undefined) Object.assign(cfg, { [k]: req.body[k] });
      cfg.locations ??= [];
      await assertRefs(req.accountId, cfg, null);
      const subs = await subscriptionsToSave(store, req.accountId, req.body.alertChannelSubscriptions, {
        create: true,
        autoAssign: req.query.autoAssignAlerts,
      });
      const row = await store.tx(async (tx) => {
        const g = await tx.checkGroups.insert(req.accountId, cfg);
        if (subs) await tx.alertChannels.setForGroup(Number(g.id), subs);
        return g;
      });
      await groups.refresh(req.accountId, Number(row.id));
      return reply.code(201).send(await show(row));
    };

  const update = async (req: { body: GroupBody; params: { id: number }; accountId: string }) => {
    const stored = await store.checkGroups.get(req.accountId, req.params.id);
    if (!stored) throw notFound('Check group', req.params.id);
    // Partial: what the body leaves out stays as stored.
    const cfg: GroupConfig = { ...stored.config };
    for (const k of FIELDS) if (req.body[k] !== undefined) Object.assign(cfg, { [k]: req.body[k] });
    await assertRefs(req.accountId, cfg, stored.config);
    const subs = await subscriptionsToSave(store, req.accountId, req.body.alertChannelSubscriptions, { create: false, autoAssign: false });
    const row = await store.tx(async (tx) => {
      const g = (await tx.checkGroups.update(req.accountId, req.params.id, cfg))!;
      if (subs) await tx.alertChannels.setForGroup(req.params.id, subs);
      return g;
    });
    await groups.refresh(req.accountId, req.params.id);
    await reschedule(req.accountId, req.params.id);
    return show(row);
  };

  // Op 6, and the older v1 form (whose defaults override more of its checks' settings).
  for (const version of [1, 2] as const) {
    app.post<{ Body: GroupBody; Querystring: { autoAssignAlerts: boolean } }>(
      `/v${version}/check-groups`,
      { schema: { body: createBody, querystring: autoAssignQuery } },
      create(version) as never,
    );
    app.put<{ Body: GroupBody; Params: { id: number } }>(
      `/v${version}/check-groups/:id`,
      { schema: { body: updateBody, params: idParams, querystring: autoAssignQuery } },
      update as never,
    );
    app.get<{ Params: { id: number }; Querystring: { limit: number; page: number } }>(
      `/v${version}/check-groups/:id/checks`,
      { schema: { params: idParams, querystring: membersQuery } },
      async (req, reply) => {
        if (!groups.get(req.accountId, req.params.id)) throw notFound('Check group', req.params.id);
        const { rows, range } = paged(await store.checkGroups.members(req.accountId, req.params.id), req.query.limit, req.query.page);
        reply.header('Content-Range', range);
        return showMembers(rows);
      },
    );
    app.get<{ Params: { groupId: number; checkId: string } }>(
      `/v${version}/check-groups/:groupId/checks/:checkId`,
      { schema: { params: memberParams } },
      async (req) => {
        if (!groups.get(req.accountId, req.params.groupId)) throw notFound('Check group', req.params.groupId);
        const row = await store.checks.get(req.params.checkId, req.accountId);
        if (!row || Number(row.config.groupId) !== req.params.groupId)
          throw notFound(`Check in check group ${req.params.groupId}:`, req.params.checkId);
        return (await showMembers([row]))[0];
      },
    );
  }

  app.get<{ Querystring: { limit: number; page: number; tag?: string[]; 'tag[]'?: string[]; name?: string[]; 'name[]'?: string[] } }>(
    '/v1/check-groups',
    { schema: { querystring: listQuery } },
    async (req, reply) => {
      const tags = [...(req.query.tag ?? []), ...(req.query['tag[]'] ?? [])];
      const names = [...(req.query.name ?? []), ...(req.query['name[]'] ?? [])];
      const all = (await store.checkGroups.list(req.accountId)).filter(
        (g) => (!tags.length || g.config.tags.some((t) => tags.includes(t))) && (!names.length || names.includes(g.name)),
      );
      const { rows, range } = paged(all, req.query.limit, req.query.page);
      reply.header('Content-Range', range);
      return Promise.all(rows.map(show));
    },
  );

  app.get<{ Params: { id: number } }>('/v1/check-groups/:id', { schema: { params: idParams } }, async (req) => {
    const row = await store.checkGroups.get(req.accountId, req.params.id);
    if (!row) throw notFound('Check group', req.params.id);
    return show(row);
  });

  app.delete<{ Params: { id: number } }>('/v1/check-groups/:id', { schema: { params: idParams } }, async (req, reply) => {
    const outcome = await store.checkGroups.delete(req.accountId, req.params.id);
    if (outcome === 'missing') throw notFound('Check group', req.params.id);
    if (outcome !== 'deleted')
      throw new ApiError(409, `Check group ${req.params.id} still has ${outcome.members} check(s): move or delete them first`, {
        id: String(req.params.id),
        checks: outcome.members,
      });
    groups.forget(req.params.id);
    return reply.code(204).send();
  });

  // Trigger URLs of groups (deprecated in the public API, still used from CI/CD).
  const triggerView = (t: GroupTriggerRow) => ({
    id: Number(t.id),
    token: t.token,
    groupId: Number(t.group_id),
    url: `${deps.baseUrl()}/check-groups/${t.group_id}/trigger/${t.token}`,
    created_at: t.created_at.toISOString(),
    called_at: t.called_at ? t.called_at.toISOString() : null,
    updated_at: null,
  });
  app.post<{ Params: { groupId: number } }>(
    '/v1/triggers/check-groups/:groupId',
    { schema: { params: groupIdParams } },
    async (req, reply) => {
      if (!groups.get(req.accountId, req.params.groupId)) throw notFound('Check group', req.params.groupId);
      const existing = await store.checkGroups.trigger(req.accountId, req.params.groupId);
      if (existing) return reply.code(200).send(triggerView(existing));
      const row = await store.checkGroups.insertTrigger(req.accountId, req.params.groupId, randomBytes(24).toString('base64url'));
      return reply.code(201).send(triggerView(row));
    },
  );
  app.get<{ Params: { groupId: number } }>('/v1/triggers/check-groups/:groupId', { schema: { params: groupIdParams } }, async (req) => {
    const row = await store.checkGroups.trigger(req.accountId, req.params.groupId);
    if (!row) throw notFound('Trigger for check group', req.params.groupId);
    return triggerView(row);
  });
  app.delete<{ Params: { groupId: number } }>(
    '/v1/triggers/check-groups/:groupId',
    { schema: { params: groupIdParams } },
    async (req, reply) => {
      if (!(await store.checkGroups.deleteTrigger(req.accountId, req.params.groupId)))
        throw notFound('Trigger for check group', req.params.groupId);
      return reply.code(204).send();
    },
  );

  /** Runs every activated member in groupOrder, at most `concurrency` at once; answers when all are done. */
  const runGroup = async (
    req: { params: { groupId: number; token: string } },
    reply: { code(n: number): { send(b: unknown): unknown } },
  ) => {
    const group = await store.checkGroups.calledByToken(req.params.groupId, req.params.token);
    if (!group) throw notFound('Trigger', req.params.groupId);
    const members = runOrder(
      (await store.checkGroups.members(group.account_id, Number(group.id)))
        .filter((m) => m.activated && m.check_type !== 'HEARTBEAT')
        .map((row) => ({ row, groupOrder: row.config.groupOrder, createdAt: row.created_at.getTime() })),
    ).map((m) => m.row);
    const outcomes: {
      checkId: string;
      name: string;
      hasFailures: boolean;
      responseTime: number;
      checkSessionId: string;
      status: string;
    }[] = new Array(members.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < members.length; i = next++) {
        outcomes[i] = { checkId: members[i].id, name: members[i].name, ...(await deps.sessions.runToEnd(members[i], RUN_WAIT_MS)) };
      }
    };
    await Promise.all(Array.from({ length: Math.min(group.config.concurrency, members.length) }, worker));
    return reply.code(outcomes.some((o) => o.hasFailures) ? 503 : 200).send(outcomes);
  };
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url: '/check-groups/:groupId/trigger/:token',
      schema: { params: tokenParams },
      config: { auth: 'public' },
      handler: runGroup as never,
    });
  }
};

export default plugin;
