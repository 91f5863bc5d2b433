// Checks of any type: list, read, delete.

import { showChecks } from '../check-alerting.js';
import type { FastifyPluginAsync } from 'fastify';
import { CHECK_TYPES, PAGE_LIMIT_MAX, PAGE_MAX } from '../../domain/limits.js';
import { declarationOf } from '../../domain/check-types/index.js';
import { idParams } from './check-fields.js';
import { ApiError, notFound } from '../errors.js';

import type { Deps } from '../deps.js';

const listQuery = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: PAGE_LIMIT_MAX, default: 10 },
    page: { type: 'integer', minimum: 1, maximum: PAGE_MAX, default: 1 },
    checkType: { type: 'string', enum: [...CHECK_TYPES] },
    applyGroupSettings: { type: 'boolean', default: false },
  },
};
const readQuery = { type: 'object', properties: { applyGroupSettings: { type: 'boolean', default: false } } };

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  app.get<{ Querystring: { limit: number; page: number; checkType?: string; applyGroupSettings: boolean } }>(
    '/v1/checks',
    { schema: { querystring: listQuery } },
    async (req, reply) => {
      const { limit, page, checkType } = req.query;
      const offset = (page - 1) * limit;
      const { rows, total } = await deps.store.checks.list(req.accountId, limit, offset, checkType);
      const end = rows.length ? offset + rows.length - 1 : offset;
      reply.header('Content-Range', rows.length ? `${offset}-${end}/${total}` : `*/${total}`);
      return showChecks(deps, rows, req.query.applyGroupSettings);
    },
  );

  app.get<{ Params: { id: string }; Querystring: { applyGroupSettings: boolean } }>(
    '/v1/checks/:id',
    { schema: { params: idParams, querystring: readQuery } },
    async (req) => {
      const row = await deps.store.checks.get(req.params.id, req.accountId);
      if (!row) throw notFound('Check', req.params.id);
      return (await showChecks(deps, [row], req.query.applyGroupSettings))[0];
    },
  );

  // Op 2: the generic update. The spec requires `heartbeat` and `script` in its body for every
  // type; the rest is applied by the type's own update route, so each type's rules hold here too.
  const genericBody = {
    type: 'object',
    required: ['heartbeat', 'script'],
    properties: { heartbeat: { type: 'object' }, script: { type: 'string' }, checkType: { type: 'string', enum: [...CHECK_TYPES] } },
  };
  app.put<{ Params: { id: string }; Body: Record<string, unknown>; Querystring: Record<string, string> }>(
    '/v1/checks/:id',
    {
      schema: {
        params: idParams,
        body: genericBody,
        querystring: { type: 'object', properties: { autoAssignAlerts: { type: 'boolean' } } },
      },
    },
    async (req, reply) => {
      const row = await deps.store.checks.get(req.params.id, req.accountId);
      if (!row) throw notFound('Check', req.params.id);
      if (req.body.checkType && req.body.checkType !== row.check_type) {
        throw new ApiError(400, `checkType cannot change: check ${row.id} is a ${row.check_type} check`, {
          field: 'checkType',
          rule: 'immutable',
        });
      }
      const path = declarationOf(row.check_type)?.path;
      if (!path)
        throw new ApiError(400, `${row.check_type} checks cannot be updated by this service`, { field: 'checkType', rule: 'supported' });
      const { heartbeat, script, checkType: _t, ...rest } = req.body;
      // Op 2 requires heartbeat and script of every body; each type takes only the ones it has.
      const payload = {
        ...rest,
        ...(row.check_type === 'HEARTBEAT' ? { heartbeat } : {}),
        ...(declarationOf(row.check_type)?.takesScript ? { script } : {}),
      };
      const res = await app.inject({
        method: 'PUT',
        url: `/v1/checks/${path}/${row.id}`,
        headers: { authorization: req.headers.authorization!, 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      });
      if (res.statusCode !== 200) return reply.code(res.statusCode).type('application/json').send(res.body);
      return { checkType: row.check_type, id: row.id };
    },
  );

  app.delete<{ Params: { id: string } }>('/v1/checks/:id', { schema: { params: idParams } }, async (req, reply) => {
    const gone = await deps.store.checks.delete(req.params.id, req.accountId);
    if (!gone) throw notFound('Check', req.params.id);
    await deps.scheduler.remove(req.params.id, true);
    deps.heartbeats.remove(req.params.id);
    return reply.code(204).send();
  });
};

export default plugin;
