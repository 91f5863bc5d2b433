import type { FastifyPluginAsync } from 'fastify';
import type { Deps } from '../deps.js';

// Prometheus scrape endpoint of the service (dropped runs, re-dispatches, dispatch latency).
// `?name=a&name=b` gives those series only: a poll for a counter or two (a health check, the
// benchmark's drain) then costs microseconds instead of folding every latency summary, which
// took ~30 ms a scrape after a burst of results.
const query = {
  type: 'object',
  properties: { name: { type: 'array', maxItems: 50, items: { type: 'string', pattern: '^[a-zA-Z_:][a-zA-Z0-9_:]*$' } } },
};

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  app.get<{ Querystring: { name?: string[] } }>(
    '/metrics',
    { schema: { querystring: query }, config: { auth: 'public' } },
    async (req, reply) => {
      const registry = deps.metrics.registry;
      reply.header('Content-Type', registry.contentType);
      if (!req.query.name) return registry.metrics();
      const known = req.query.name.filter((n) => registry.getSingleMetric(n));
      return (await Promise.all(known.map((n) => registry.getSingleMetricAsString(n)))).join('\n') + '\n';
    },
  );
  app.get('/health', { config: { auth: 'public' } }, async () => ({ status: 'ok' }));
};

export default plugin;
