// Snippets (op 16): reusable scripts for the setup and teardown of API checks.

import type { FastifyPluginAsync } from 'fastify';
import { ApiError, notFound } from '../errors.js';
import type { Deps } from '../deps.js';
import type { SnippetRow } from '../store/snippets.js';

const body = {
  type: 'object',
  required: ['name', 'script'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 255 }, script: { type: 'string', minLength: 1, maxLength: 256 * 1024 } },
};
const params = { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647 } } };
const view = (s: SnippetRow) => ({
  id: s.id,
  name: s.name,
  script: s.script,
  created_at: s.created_at.toISOString(),
  updated_at: s.updated_at ? s.updated_at.toISOString() : null,
});

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  app.post<{ Body: { name: string; script: string } }>('/v1/snippets', { schema: { body } }, async (req, reply) => {
    const row = await deps.store.snippets.insert(req.accountId, req.body.name, req.body.script);
    deps.snippets.set(row.id, req.accountId, row.script);
    return reply.code(201).send(view(row));
  });
  app.get('/v1/snippets', async (req) => (await deps.store.snippets.list(req.accountId)).map(view));
  app.get<{ Params: { id: number } }>('/v1/snippets/:id', { schema: { params } }, async (req) => {
    const row = await deps.store.snippets.get(req.accountId, req.params.id);
    if (!row) throw notFound('Snippet', req.params.id);
    return view(row);
  });
  app.put<{ Params: { id: number }; Body: { name: string; script: string } }>(
    '/v1/snippets/:id',
    { schema: { params, body } },
    async (req) => {
      const row = await deps.store.snippets.update(req.accountId, req.params.id, req.body.name, req.body.script);
      if (!row) throw notFound('Snippet', req.params.id);
      deps.snippets.set(row.id, req.accountId, row.script);
      return view(row);
    },
  );
  app.delete<{ Params: { id: number } }>('/v1/snippets/:id', { schema: { params } }, async (req, reply) => {
    const users = await deps.store.snippets.usedBy(req.accountId, req.params.id);
    if (users.length) throw new ApiError(409, `Snippet ${req.params.id} is used by ${users.length} check(s)`, { checkIds: users });
    if (!(await deps.store.snippets.delete(req.accountId, req.params.id))) throw notFound('Snippet', req.params.id);
    deps.snippets.delete(req.params.id);
    return reply.code(204).send();
  });
};

export default plugin;
