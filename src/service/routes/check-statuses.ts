import type { FastifyPluginAsync } from 'fastify';
import { notFound } from '../errors.js';
import type { Deps } from '../deps.js';
import type { StatusRow } from '../store/statuses.js';

const view = (s: StatusRow) => ({
  name: s.name,
  checkId: s.check_id,
  hasFailures: s.has_failures,
  hasErrors: s.has_errors,
  isDegraded: s.is_degraded,
  longestRun: s.longest_run,
  shortestRun: s.shortest_run,
  lastRunLocation: s.last_run_location,
  lastCheckRunId: s.last_check_run_id,
  sslDaysRemaining: null,
  created_at: s.created_at.toISOString(),
  updated_at: s.updated_at ? s.updated_at.toISOString() : null,
});

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  app.get('/v1/check-statuses', async (req) => {
    return (await deps.store.statuses.list(req.accountId)).map(view);
  });
  app.get<{ Params: { checkId: string } }>(
    '/v1/check-statuses/:checkId',
    { schema: { params: { type: 'object', required: ['checkId'], properties: { checkId: { type: 'string' } } } } },
    async (req) => {
      const row = await deps.store.statuses.get(req.accountId, req.params.checkId);
      if (!row) throw notFound('Check status', req.params.checkId);
      return view(row);
    },
  );
};

export default plugin;
