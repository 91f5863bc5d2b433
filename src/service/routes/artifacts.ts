// GET /v1/artifacts/{id}: screenshots, traces, videos and reports of browser runs, streamed
// from the artifact store to API clients of the account that owns them.

import type { FastifyPluginAsync } from 'fastify';
import { notFound } from '../errors.js';
import type { Deps } from '../deps.js';

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  const params = { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^[A-Za-z0-9]{1,64}$' } } };
  app.get<{ Params: { id: string } }>('/v1/artifacts/:id', { schema: { params } }, async (req, reply) => {
    const a = await deps.store.artifacts.get(req.accountId, req.params.id);
    const body = a ? deps.artifacts.get(a.id) : null;
    if (!a || !body) throw notFound('Artifact', req.params.id);
    return reply
      .header('content-type', a.content_type)
      .header('content-length', String(a.size))
      .header('content-disposition', `attachment; filename="${a.name}"`)
      .send(body);
  });
};

export default plugin;
