// Runtimes (op 22): GET /v1/runtimes and GET /v1/runtimes/{id}, the records of runtimes/<id>/.

import type { FastifyPluginAsync } from 'fastify';
import { notFound } from '../errors.js';
import type { Deps } from '../deps.js';

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  app.get('/v1/runtimes', async () => deps.runtimes);
  app.get<{ Params: { id: string } }>(
    '/v1/runtimes/:id',
    { schema: { params: { type: 'object', properties: { id: { type: 'string', minLength: 1 } } } } },
    async (req) => {
      const r = deps.runtimes.find((x) => x.name === req.params.id);
      if (!r) throw notFound('Runtime', req.params.id);
      return r;
    },
  );
};

export default plugin;
