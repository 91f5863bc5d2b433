import type { FastifyPluginAsync } from 'fastify';
import { notFound } from '../errors.js';
import type { Deps } from '../deps.js';

interface StatusRow {
  check_id: string;
  name: string;
  has_failures: boolean;
  has_errors: boolean;
  is_degraded: boolean;
  longest_run: number | null;
  shortest_run: number | null;
  last_run_location: string | null;
  last_check_run_id: string | null;
  created_at: Date;
  updated_at: Date | null;
}

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
    const rows = await deps.db.query<StatusRow>('SELECT * FROM check_statuses WHERE account_id = $1 ORDER BY check_id', [req.accountId]);
    return rows.map(view);
  });
  app.get<{ Params: { checkId: string } }>(
    '/v1/check-statuses/:checkId',
    { schema: { params: { type: 'object', required: ['checkId'], properties: { checkId: { type: 'string' } } } } },
    async (req) => {
      const [row] = await deps.db.query<StatusRow>('SELECT * FROM check_statuses WHERE check_id = $1 AND account_id = $2', [
        req.params.checkId,
        req.accountId,
      ]);
      if (!row) throw notFound('Check status', req.params.checkId);
      return view(row);
    },
  );
};

export default plugin;
