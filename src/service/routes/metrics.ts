import type { FastifyPluginAsync } from 'fastify';
import type { Deps } from '../deps.js';

// Prometheus scrape endpoint of the service (dropped runs, re-dispatches, dispatch latency).
const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  app.get('/metrics', { config: { auth: 'public' } }, async (_req, reply) => {
    reply.header('Content-Type', deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  });
  app.get('/health', { config: { auth: 'public' } }, async () => ({ status: 'ok' }));
};

export default plugin;
