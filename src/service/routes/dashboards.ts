// Dashboards (the checks or tags they show, their URL, header, refresh and privacy) and the
// incidents shown on them: op 9 and the rest of /v1/incidents, with their updates.

import type { FastifyPluginAsync } from 'fastify';
import type { Deps } from '../deps.js';
import { ApiError, notFound } from '../errors.js';
import type { DashboardRow } from '../store/dashboards.js';
import type { IncidentRow, IncidentUpdateRow } from '../store/incidents.js';
import { PAGE_LIMIT_MAX, PAGE_MAX } from '../../domain/limits.js';
import type { PageKeyRow } from '../store/page-keys.js';
import { pageKeyRoutes, pageKeyView } from './page-keys.js';

const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
const text = (max: number) => nullable({ type: 'string', maxLength: max });
const DASHBOARD_DEFAULTS = {
  customUrl: null,
  customDomain: null,
  logo: null,
  favicon: null,
  link: null,
  description: null,
  width: 'FULL',
  refreshRate: 60,
  paginate: true,
  paginationRate: 60,
  sortByStatus: false,
  checksPerPage: 15,
  useTagsAndOperator: false,
  hideTags: false,
  enableIncidents: false,
  expandChecks: false,
  tags: [] as string[],
  showHeader: true,
  showCheckRunLinks: false,
  showGroupNames: true,
  customCSS: null,
  isPrivate: false,
  showP95: true,
  showP99: true,
  /** Outpost: show a failing check's error message on the served page (off: no error text leaks). */
  showErrorMessages: false,
};
const dashboardProperties = {
  header: { type: 'string', minLength: 1, maxLength: 255 },
  customUrl: nullable({ type: 'string', pattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$' }),
  customDomain: nullable({ type: 'string', pattern: '^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$' }),
  logo: text(2048),
  favicon: text(2048),
  link: text(2048),
  description: text(1000),
  width: { type: 'string', enum: ['FULL', '960PX'] },
  refreshRate: { type: 'integer', enum: [60, 300, 600] },
  paginate: { type: 'boolean' },
  paginationRate: { type: 'integer', enum: [30, 60, 300] },
  sortByStatus: { type: 'boolean' },
  checksPerPage: { type: 'integer', minimum: 1, maximum: 20 },
  useTagsAndOperator: { type: 'boolean' },
  hideTags: { type: 'boolean' },
  enableIncidents: { type: 'boolean' },
  expandChecks: { type: 'boolean' },
  tags: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1 } },
  showHeader: { type: 'boolean' },
  showCheckRunLinks: { type: 'boolean' },
  showGroupNames: { type: 'boolean' },
  customCSS: text(100_000),
  isPrivate: { type: 'boolean' },
  showP95: { type: 'boolean' },
  showP99: { type: 'boolean' },
  showErrorMessages: { type: 'boolean' },
};
type DashboardConfig = typeof DASHBOARD_DEFAULTS & { header: string };
const dashboardParams = {
  type: 'object',
  required: ['dashboardId'],
  properties: { dashboardId: { type: 'string', minLength: 1, maxLength: 253 } },
};
const pageQuery = {
  limit: { type: 'integer', minimum: 1, maximum: PAGE_LIMIT_MAX, default: 10 },
  page: { type: 'integer', minimum: 1, maximum: PAGE_MAX, default: 1 },
};

const IMPACTS = ['MAINTENANCE', 'MAJOR', 'MINOR'];
const UPDATE_STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED', 'MAINTENANCE'];
const update = {
  type: 'object',
  required: ['status', 'description'],
  properties: { status: { type: 'string', enum: UPDATE_STATUSES }, description: { type: 'string', minLength: 1, maxLength: 10_000 } },
};
const when = nullable({ type: 'string', format: 'date-time' });
const incidentCreate = {
  type: 'object',
  required: ['name', 'dashboardId', 'incidentUpdates'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    impact: { type: 'string', enum: IMPACTS, default: 'MINOR' },
    dashboardId: { type: 'integer', minimum: 1, maximum: 2147483647 },
    incidentUpdates: { type: 'array', minItems: 1, maxItems: 1, items: update },
    startedAt: when,
    stoppedAt: when,
  },
};
const incidentUpdateBody = {
  type: 'object',
  required: ['name', 'impact'],
  properties: { name: incidentCreate.properties.name, impact: { type: 'string', enum: IMPACTS }, startedAt: when, stoppedAt: when },
};
const incidentParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } };
const updateParams = {
  type: 'object',
  required: ['incidentId', 'id'],
  properties: { incidentId: { type: 'string', minLength: 1, maxLength: 100 }, id: { type: 'string', minLength: 1, maxLength: 100 } },
};

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const dashboardView = (r: DashboardRow, keys: PageKeyRow[] = []) => ({
  ...r.config,
  id: Number(r.id),
  dashboardId: r.dashboard_id,
  keys: keys.map(pageKeyView),
  created_at: r.created_at.toISOString(),
  updated_at: iso(r.updated_at),
});
const updateView = (u: IncidentUpdateRow) => ({
  id: u.id,
  status: u.status,
  description: u.description,
  incidentId: u.incident_id,
  created_at: u.created_at.toISOString(),
  updated_at: iso(u.updated_at),
});

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  const dashboards = deps.store.dashboards;
  const incidents = deps.store.incidents;

  const save = async (accountId: string, body: Partial<DashboardConfig>, stored: DashboardRow | null) => {
    const config = { ...DASHBOARD_DEFAULTS, ...(stored?.config as DashboardConfig | undefined), ...body } as DashboardConfig;
    const taken = await dashboards.taken(config, stored ? Number(stored.id) : null);
    if (taken)
      throw new ApiError(409, `${taken} ${JSON.stringify(config[taken as 'customUrl'])} is used by another dashboard`, {
        field: taken,
        rule: 'unique',
      });
    return stored ? (await dashboards.update(accountId, Number(stored.id), config))! : await dashboards.insert(accountId, config);
  };

  /** Dashboards as the API shows them, each with its (masked) keys. */
  const show = async (rows: DashboardRow[]) => {
    const keys = await deps.store.pageKeys.list(
      'dashboard',
      rows.map((r) => String(r.id)),
    );
    return rows.map((r) =>
      dashboardView(
        r,
        keys.filter((k) => k.page_id === String(r.id)),
      ),
    );
  };
  const showOne = async (row: DashboardRow) => (await show([row]))[0];

  app.get<{ Querystring: { limit: number; page: number } }>(
    '/v1/dashboards',
    { schema: { querystring: { type: 'object', properties: pageQuery } } },
    async (req) => show(await dashboards.list(req.accountId, req.query.limit, (req.query.page - 1) * req.query.limit)),
  );
  app.post<{ Body: Partial<DashboardConfig> }>(
    '/v1/dashboards',
    { schema: { body: { type: 'object', required: ['header'], properties: dashboardProperties } } },
    async (req, reply) => reply.code(201).send(await showOne(await save(req.accountId, req.body, null))),
  );
  const byPath = async (accountId: string, value: string, type?: string) => {
    const column = type === 'customUrl' ? 'custom_url' : type === 'customDomain' ? 'custom_domain' : 'dashboard_id';
    const row = await dashboards.find(accountId, column, value);
    if (!row) throw notFound('Dashboard', value);
    return row;
  };
  app.get<{ Params: { dashboardId: string }; Querystring: { type?: string } }>(
    '/v1/dashboards/:dashboardId',
    {
      schema: {
        params: dashboardParams,
        querystring: { type: 'object', properties: { type: { type: 'string', enum: ['customUrl', 'customDomain'] } } },
      },
    },
    async (req) => showOne(await byPath(req.accountId, req.params.dashboardId, req.query.type)),
  );
  app.put<{ Params: { dashboardId: string }; Body: Partial<DashboardConfig> }>(
    '/v1/dashboards/:dashboardId',
    { schema: { params: dashboardParams, body: { type: 'object', required: ['header'], properties: dashboardProperties } } },
    async (req) => showOne(await save(req.accountId, req.body, await byPath(req.accountId, req.params.dashboardId))),
  );
  app.delete<{ Params: { dashboardId: string } }>(
    '/v1/dashboards/:dashboardId',
    { schema: { params: dashboardParams } },
    async (req, reply) => {
      const id = Number((await byPath(req.accountId, req.params.dashboardId)).id);
      await dashboards.delete(req.accountId, id);
      await deps.store.pageKeys.deleteAll('dashboard', String(id));
      return reply.code(204).send();
    },
  );
  pageKeyRoutes(app, deps, {
    kind: 'dashboard',
    path: '/v1/dashboards/:dashboardId',
    params: dashboardParams,
    pageOf: (accountId, p) => byPath(accountId, p.dashboardId),
  });

  const incidentView = async (r: IncidentRow, all: boolean) => {
    const updates = await incidents.updates(r.id);
    return {
      id: r.id,
      name: r.name,
      impact: r.impact,
      dashboardId: Number(r.dashboard_id),
      startedAt: iso(r.started_at),
      stoppedAt: iso(r.stopped_at),
      // Without includeAllIncidentUpdates, the latest only.
      incidentUpdates: (all ? updates : updates.slice(-1)).map(updateView),
      created_at: r.created_at.toISOString(),
      updated_at: iso(r.updated_at),
    };
  };
  const incidentOf = async (accountId: string, id: string) => {
    const row = await incidents.get(accountId, id);
    if (!row) throw notFound('Incident', id);
    return row;
  };
  const dateOf = (v: string | null | undefined) => (v ? new Date(v) : null);

  // Op 9.
  app.post<{
    Body: {
      name: string;
      impact: string;
      dashboardId: number;
      incidentUpdates: { status: string; description: string }[];
      startedAt?: string | null;
      stoppedAt?: string | null;
    };
  }>('/v1/incidents', { schema: { body: incidentCreate } }, async (req, reply) => {
    const b = req.body;
    if (!(await dashboards.byNumber(req.accountId, b.dashboardId))) throw notFound('Dashboard', b.dashboardId);
    const row = await incidents.insert(
      req.accountId,
      b.dashboardId,
      { name: b.name, impact: b.impact, startedAt: dateOf(b.startedAt) ?? new Date(), stoppedAt: dateOf(b.stoppedAt) },
      b.incidentUpdates[0],
    );
    return reply.code(201).send(await incidentView(row, true));
  });
  app.get<{ Params: { id: string }; Querystring: { includeAllIncidentUpdates: boolean } }>(
    '/v1/incidents/:id',
    {
      schema: {
        params: incidentParams,
        querystring: { type: 'object', properties: { includeAllIncidentUpdates: { type: 'boolean', default: false } } },
      },
    },
    async (req) => incidentView(await incidentOf(req.accountId, req.params.id), req.query.includeAllIncidentUpdates),
  );
  app.put<{ Params: { id: string }; Body: { name: string; impact: string; startedAt?: string | null; stoppedAt?: string | null } }>(
    '/v1/incidents/:id',
    { schema: { params: incidentParams, body: incidentUpdateBody } },
    async (req) => {
      const stored = await incidentOf(req.accountId, req.params.id);
      const b = req.body;
      const row = await incidents.update(req.accountId, stored.id, {
        name: b.name,
        impact: b.impact,
        startedAt: b.startedAt === undefined ? stored.started_at : dateOf(b.startedAt),
        stoppedAt: b.stoppedAt === undefined ? stored.stopped_at : dateOf(b.stoppedAt),
      });
      return incidentView(row!, true);
    },
  );
  app.delete<{ Params: { id: string } }>('/v1/incidents/:id', { schema: { params: incidentParams } }, async (req, reply) => {
    if (!(await incidents.delete(req.accountId, req.params.id))) throw notFound('Incident', req.params.id);
    return reply.code(204).send();
  });

  app.post<{ Params: { id: string }; Body: { status: string; description: string } }>(
    '/v1/incidents/:id/updates',
    { schema: { params: incidentParams, body: update } },
    async (req, reply) => {
      const incident = await incidentOf(req.accountId, req.params.id);
      return reply.code(201).send(updateView(await incidents.addUpdate(incident.id, req.body)));
    },
  );
  app.put<{ Params: { incidentId: string; id: string }; Body: { description: string } }>(
    '/v1/incidents/:incidentId/updates/:id',
    {
      schema: {
        params: updateParams,
        body: { type: 'object', required: ['description'], properties: { description: update.properties.description } },
      },
    },
    async (req) => {
      const incident = await incidentOf(req.accountId, req.params.incidentId);
      const row = await incidents.editUpdate(incident.id, req.params.id, req.body.description);
      if (!row) throw notFound('Incident update', req.params.id);
      return updateView(row);
    },
  );
  app.delete<{ Params: { incidentId: string; id: string } }>(
    '/v1/incidents/:incidentId/updates/:id',
    { schema: { params: updateParams } },
    async (req, reply) => {
      const incident = await incidentOf(req.accountId, req.params.incidentId);
      const outcome = await incidents.deleteUpdate(incident.id, req.params.id);
      if (outcome === 'missing') throw notFound('Incident update', req.params.id);
      if (outcome === 'last') throw new ApiError(409, 'An incident keeps at least one update: this is its last', { id: req.params.id });
      return reply.code(204).send();
    },
  );
};

export default plugin;
