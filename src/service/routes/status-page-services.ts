// Status-page services: op 17 (the list, by cursor or whole) and their create, read, rename and
// delete. A service a check's triggerIncident names, or a status page shows, cannot be deleted
// (409).

import type { FastifyPluginAsync } from 'fastify';
import type { Deps } from '../deps.js';
import { ApiError, notFound } from '../errors.js';
import { cursorPage } from './paging.js';
import type { ServiceRow } from '../store/status-page-services.js';

const body = { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 255 } } };
const params = { type: 'object', required: ['serviceId'], properties: { serviceId: { type: 'string', minLength: 1, maxLength: 100 } } };
const listQuery = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    nextId: { type: 'string', minLength: 1, maxLength: 100 },
    paginated: { type: 'boolean', default: true },
  },
};

export const serviceView = (r: ServiceRow) => ({
  name: r.name,
  id: r.id,
  accountId: r.account_id,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at ? r.updated_at.toISOString() : null,
});

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  const store = deps.store.statusPageServices;

  app.get<{ Querystring: { limit: number; nextId?: string; paginated: boolean } }>(
    '/v1/status-pages/services',
    { schema: { querystring: listQuery } },
    async (req) => {
      const all = await store.list(req.accountId);
      if (!req.query.paginated) return { length: all.length, entries: all.map(serviceView), nextId: null };
      const { page, nextId } = cursorPage(all, req.query.limit, req.query.nextId, 'service');
      return { length: page.length, entries: page.map(serviceView), nextId };
    },
  );

  app.post<{ Body: { name: string } }>('/v1/status-pages/services', { schema: { body } }, async (req) =>
    serviceView(await store.insert(req.accountId, req.body.name)),
  );

  app.get<{ Params: { serviceId: string } }>('/v1/status-pages/services/:serviceId', { schema: { params } }, async (req) => {
    const row = await store.get(req.accountId, req.params.serviceId);
    if (!row) throw notFound('Status-page service', req.params.serviceId);
    return serviceView(row);
  });

  app.put<{ Params: { serviceId: string }; Body: { name: string } }>(
    '/v1/status-pages/services/:serviceId',
    { schema: { params, body } },
    async (req) => {
      const row = await store.rename(req.accountId, req.params.serviceId, req.body.name);
      if (!row) throw notFound('Status-page service', req.params.serviceId);
      return serviceView(row);
    },
  );

  app.delete<{ Params: { serviceId: string } }>('/v1/status-pages/services/:serviceId', { schema: { params } }, async (req, reply) => {
    if (!(await store.get(req.accountId, req.params.serviceId))) throw notFound('Status-page service', req.params.serviceId);
    const checks = await store.triggeringChecks(req.accountId, req.params.serviceId);
    if (checks.length)
      throw new ApiError(409, `Status-page service ${req.params.serviceId} is named by the triggerIncident of ${checks.length} check(s)`, {
        id: req.params.serviceId,
        checks,
      });
    const pages = (await deps.store.statusPages.list(req.accountId)).filter((p) =>
      p.config.cards.some((c) => c.serviceIds.includes(req.params.serviceId)),
    );
    if (pages.length)
      throw new ApiError(409, `Status-page service ${req.params.serviceId} is shown on ${pages.length} status page(s)`, {
        id: req.params.serviceId,
        statusPages: pages.map((p) => p.id),
      });
    await store.delete(req.accountId, req.params.serviceId);
    return reply.code(204).send();
  });
};

export default plugin;
