// Status-page incidents: on one or more status-page services, with a timeline of updates.
// PUT and PATCH both update one (the `checkly` CLI sends PATCH with the fields it changes).

import type { FastifyPluginAsync } from 'fastify';
import { INCIDENT_STATUSES, SEVERITIES, incidentDuration } from '../../domain/incidents.js';
import type { Deps } from '../deps.js';
import { ApiError, notFound } from '../errors.js';
import { cursorPage } from './paging.js';
import type { ServiceIncidentRow, ServiceIncidentUpdateRow, UpdateFields } from '../store/service-incidents.js';
import type { ServiceRow } from '../store/status-page-services.js';
import type { Repositories } from '../store/index.js';
import { serviceView } from './status-page-services.js';

const updateItem = {
  type: 'object',
  required: ['description'],
  properties: {
    description: { type: 'string', minLength: 1, maxLength: 10_000 },
    status: { type: 'string', enum: [...INCIDENT_STATUSES], default: 'INVESTIGATING' },
    publicIncidentUpdateDate: { type: 'string', format: 'date-time' },
    notifySubscribers: { type: 'boolean', default: false },
  },
};
const fields = {
  name: { type: 'string', minLength: 1, maxLength: 255 },
  severity: { type: 'string', enum: [...SEVERITIES] },
  services: {
    type: 'array',
    minItems: 1,
    maxItems: 100,
    items: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } },
  },
};
const createBody = {
  type: 'object',
  required: ['name', 'severity', 'services', 'incidentUpdates'],
  properties: { ...fields, incidentUpdates: { type: 'array', minItems: 1, maxItems: 1, items: updateItem } },
};
const params = { type: 'object', required: ['incidentId'], properties: { incidentId: { type: 'string', minLength: 1, maxLength: 100 } } };
const updateParams = {
  type: 'object',
  required: ['incidentId', 'updateId'],
  properties: { incidentId: params.properties.incidentId, updateId: { type: 'string', minLength: 1, maxLength: 100 } },
};
const listQuery = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    nextId: { type: 'string', minLength: 1, maxLength: 100 },
  },
};
/** The list covers the latest incidents only. */
const LIST_MAX = 100;

type Body = { name: string; severity: string; services: { id: string }[] };
type UpdateBody = { description: string; status: string; publicIncidentUpdateDate?: string; notifySubscribers: boolean };

const updateView = (u: ServiceIncidentUpdateRow) => ({
  id: u.id,
  description: u.description,
  status: u.status,
  publicIncidentUpdateDate: u.public_incident_update_date.toISOString(),
  notifySubscribers: Boolean(u.notify_subscribers),
  created_at: u.created_at.toISOString(),
  updated_at: u.updated_at ? u.updated_at.toISOString() : null,
});

/** Incidents as the API shows them: services, timeline, last status, duration in seconds. */
export async function showServiceIncidents(store: Repositories, accountId: string, rows: ServiceIncidentRow[]) {
  const updates = await store.serviceIncidents.updates(rows.map((r) => r.id));
  const services = new Map<string, ServiceRow>((await store.statusPageServices.list(accountId)).map((s) => [s.id, s]));
  return rows.map((r) => {
    const mine = updates.filter((u) => u.incident_id === r.id);
    return {
      id: r.id,
      name: r.name,
      severity: r.severity,
      services: r.service_ids.flatMap((id) => (services.has(id) ? [serviceView(services.get(id)!)] : [])),
      incidentUpdates: mine.map(updateView),
      lastUpdateStatus: mine.at(-1)?.status ?? null,
      duration: incidentDuration(
        mine.map((u) => ({ status: u.status, at: u.public_incident_update_date.getTime() })),
        Date.now(),
      ),
      created_at: r.created_at.toISOString(),
      updated_at: r.updated_at ? r.updated_at.toISOString() : null,
    };
  });
}

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  const store = deps.store.serviceIncidents;
  const show = async (accountId: string, row: ServiceIncidentRow) => (await showServiceIncidents(deps.store, accountId, [row]))[0];
  const incidentOf = async (accountId: string, id: string) => {
    const row = await store.get(accountId, id);
    if (!row) throw notFound('Incident', id);
    return row;
  };
  /** The ids of the services named, each one the account's (400 otherwise). */
  const serviceIds = async (accountId: string, services: { id: string }[]) => {
    for (const s of services)
      if (!(await deps.store.statusPageServices.get(accountId, s.id)))
        throw new ApiError(400, `services names no status-page service with id ${s.id}`, { field: 'services', rule: 'exists' });
    return [...new Set(services.map((s) => s.id))];
  };
  const updateFields = (b: Partial<UpdateBody>): Partial<UpdateFields> => ({
    ...(b.status !== undefined ? { status: b.status } : {}),
    ...(b.description !== undefined ? { description: b.description } : {}),
    ...(b.notifySubscribers !== undefined ? { notifySubscribers: b.notifySubscribers } : {}),
    ...(b.publicIncidentUpdateDate !== undefined ? { publicIncidentUpdateDate: new Date(b.publicIncidentUpdateDate) } : {}),
  });

  app.get<{ Querystring: { limit: number; nextId?: string } }>(
    '/v1/status-pages/incidents',
    { schema: { querystring: listQuery } },
    async (req) => {
      const all = await store.latest(req.accountId, LIST_MAX);
      const { page, nextId } = cursorPage(all, req.query.limit, req.query.nextId, 'incident');
      return {
        length: page.length,
        entries: await showServiceIncidents(deps.store, req.accountId, page),
        nextId,
      };
    },
  );

  app.post<{ Body: Body & { incidentUpdates: UpdateBody[] } }>(
    '/v1/status-pages/incidents',
    { schema: { body: createBody } },
    async (req, reply) => {
      const ids = await serviceIds(req.accountId, req.body.services);
      const first = updateFields(req.body.incidentUpdates[0]) as UpdateFields;
      const row = await store.open(req.accountId, { name: req.body.name, severity: req.body.severity, serviceIds: ids }, first);
      if (first.notifySubscribers) deps.notifier.wake();
      return reply.code(201).send(await show(req.accountId, row));
    },
  );

  app.get<{ Params: { incidentId: string } }>('/v1/status-pages/incidents/:incidentId', { schema: { params } }, async (req) =>
    show(req.accountId, await incidentOf(req.accountId, req.params.incidentId)),
  );

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route<{ Params: { incidentId: string }; Body: Partial<Body> }>({
      method,
      url: '/v1/status-pages/incidents/:incidentId',
      schema: { params, body: { type: 'object', required: method === 'PUT' ? ['name', 'severity', 'services'] : [], properties: fields } },
      handler: async (req) => {
        const stored = await incidentOf(req.accountId, req.params.incidentId);
        const row = await store.update(req.accountId, stored.id, {
          name: req.body.name ?? stored.name,
          severity: req.body.severity ?? stored.severity,
          serviceIds: req.body.services ? await serviceIds(req.accountId, req.body.services) : stored.service_ids,
        });
        return show(req.accountId, row!);
      },
    });
  }

  app.delete<{ Params: { incidentId: string } }>('/v1/status-pages/incidents/:incidentId', { schema: { params } }, async (req, reply) => {
    if (!(await store.delete(req.accountId, req.params.incidentId))) throw notFound('Incident', req.params.incidentId);
    return reply.code(204).send();
  });

  app.get<{ Params: { incidentId: string } }>(
    '/v1/status-pages/incidents/:incidentId/incident-updates',
    { schema: { params } },
    async (req) => (await store.updates([(await incidentOf(req.accountId, req.params.incidentId)).id])).map(updateView),
  );
  app.post<{ Params: { incidentId: string }; Body: UpdateBody }>(
    '/v1/status-pages/incidents/:incidentId/incident-updates',
    { schema: { params, body: { ...updateItem, required: ['description', 'status'] } } },
    async (req) => {
      const incident = await incidentOf(req.accountId, req.params.incidentId);
      const row = await store.addUpdate(incident.id, updateFields(req.body) as UpdateFields);
      if (row.notify_subscribers) deps.notifier.wake();
      return updateView(row);
    },
  );
  app.put<{ Params: { incidentId: string; updateId: string }; Body: Partial<UpdateBody> }>(
    '/v1/status-pages/incidents/:incidentId/incident-updates/:updateId',
    {
      schema: {
        params: updateParams,
        body: {
          type: 'object',
          properties: {
            ...updateItem.properties,
            status: { type: 'string', enum: [...INCIDENT_STATUSES] },
            notifySubscribers: { type: 'boolean' },
          },
        },
      },
    },
    async (req) => {
      const incident = await incidentOf(req.accountId, req.params.incidentId);
      const row = await store.editUpdate(incident.id, req.params.updateId, updateFields(req.body));
      if (!row) throw notFound('Incident update', req.params.updateId);
      return updateView(row);
    },
  );
  app.delete<{ Params: { incidentId: string; updateId: string } }>(
    '/v1/status-pages/incidents/:incidentId/incident-updates/:updateId',
    { schema: { params: updateParams } },
    async (req, reply) => {
      const incident = await incidentOf(req.accountId, req.params.incidentId);
      if (!(await store.deleteUpdate(incident.id, req.params.updateId))) throw notFound('Incident update', req.params.updateId);
      return reply.code(204).send();
    },
  );
};

export default plugin;
