// Account environment variables (op 13): the key never changes, a secret's value is never shown
// again once set, and a secret stays a secret.

import type { FastifyPluginAsync } from 'fastify';
import { ApiError, notFound } from '../errors.js';
import type { Deps } from '../deps.js';
import type { VariableRow } from '../store/variables.js';

const KEY = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' };
const createBody = {
  type: 'object',
  required: ['key', 'value'],
  properties: {
    key: KEY,
    value: { type: 'string' },
    locked: { type: 'boolean', default: false },
    secret: { type: 'boolean', default: false },
  },
};
const updateBody = {
  type: 'object',
  required: ['value'],
  additionalProperties: false,
  properties: {
    key: { type: 'string' },
    value: { type: 'string', minLength: 1 },
    locked: { type: 'boolean' },
    secret: { type: 'boolean' },
  },
};
const params = { type: 'object', required: ['key'], properties: { key: { type: 'string', minLength: 1 } } };

const view = (v: VariableRow) => ({
  key: v.key,
  value: v.secret ? null : v.value,
  locked: v.locked,
  secret: v.secret,
  created_at: v.created_at.toISOString(),
  updated_at: v.updated_at ? v.updated_at.toISOString() : null,
});

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  app.get('/v1/variables', async (req) => {
    return (await deps.store.variables.list(req.accountId)).map(view);
  });

  app.post<{ Body: { key: string; value: string; locked: boolean; secret: boolean } }>(
    '/v1/variables',
    { schema: { body: createBody } },
    async (req, reply) => {
      const b = req.body;
      const row = await deps.store.variables.insert(req.accountId, b);
      if (!row) throw new ApiError(409, `A variable with key ${b.key} already exists`, { field: 'key', rule: 'unique' });
      await deps.variables.refresh(req.accountId);
      return reply.code(201).send(view(row));
    },
  );

  app.get<{ Params: { key: string } }>('/v1/variables/:key', { schema: { params } }, async (req) => {
    const row = await deps.store.variables.get(req.accountId, req.params.key);
    if (!row) throw notFound('Variable', req.params.key);
    return view(row);
  });

  app.put<{ Params: { key: string }; Body: { key?: string; value: string; locked?: boolean; secret?: boolean } }>(
    '/v1/variables/:key',
    { schema: { params, body: updateBody } },
    async (req) => {
      const b = req.body;
      if (b.key !== undefined && b.key !== req.params.key) {
        throw new ApiError(400, 'key cannot be changed: delete the variable and create a new one', { field: 'key', rule: 'immutable' });
      }
      const cur = await deps.store.variables.get(req.accountId, req.params.key);
      if (!cur) throw notFound('Variable', req.params.key);
      if (cur.secret && b.secret === false)
        throw new ApiError(400, 'secret cannot be turned off once set', { field: 'secret', rule: 'one-way' });
      const row = await deps.store.variables.update(req.accountId, req.params.key, {
        value: b.value,
        locked: b.locked ?? cur.locked,
        secret: b.secret ?? cur.secret,
      });
      if (!row) throw notFound('Variable', req.params.key);
      await deps.variables.refresh(req.accountId);
      return view(row);
    },
  );

  app.delete<{ Params: { key: string } }>('/v1/variables/:key', { schema: { params } }, async (req, reply) => {
    if (!(await deps.store.variables.delete(req.accountId, req.params.key))) throw notFound('Variable', req.params.key);
    await deps.variables.refresh(req.accountId);
    return reply.code(204).send();
  });
};

export default plugin;
