// Checks of any type: list, read, delete.

import type { FastifyPluginAsync } from 'fastify';
import { CHECK_TYPES, PAGE_LIMIT_MAX } from '../../domain/limits.js';
import { getCheck, listChecks, deleteCheck, toApi } from '../store/checks.js';
import { idParams } from './check-fields.js';
import { notFound } from '../errors.js';
import type { Deps } from '../deps.js';

const listQuery = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: PAGE_LIMIT_MAX, default: 10 },
    page: { type: 'integer', minimum: 1, default: 1 },
    checkType: { type: 'string', enum: [...CHECK_TYPES] },
  },
};

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  app.get<{ Querystring: { limit: number; page: number; checkType?: string } }>('/v1/checks', { schema: { querystring: listQuery } }, async (req, reply) => {
    const { limit, page, checkType } = req.query;
    const offset = (page - 1) * limit;
    const { rows, total } = await listChecks(deps.db, req.accountId, limit, offset, checkType);
    const end = rows.length ? offset + rows.length - 1 : offset;
    reply.header('Content-Range', rows.length ? `${offset}-${end}/${total}` : `*/${total}`);
    return rows.map((r) => toApi(r, deps.pingBase()));
  });

  app.get<{ Params: { id: string } }>('/v1/checks/:id', { schema: { params: idParams } }, async (req) => {
    const row = await getCheck(deps.db, req.params.id, req.accountId);
    if (!row) throw notFound('Check', req.params.id);
    return toApi(row, deps.pingBase());
  });

  app.delete<{ Params: { id: string } }>('/v1/checks/:id', { schema: { params: idParams } }, async (req, reply) => {
    const gone = await deps.db.tx((tx) => deleteCheck(tx, req.params.id, req.accountId));
    if (!gone) throw notFound('Check', req.params.id);
    await deps.scheduler.remove(req.params.id, true);
    deps.heartbeats.remove(req.params.id);
    return reply.code(204).send();
  });
};

export default plugin;
