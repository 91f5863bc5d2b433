import type { FastifyPluginAsync } from 'fastify';
import { LOCATIONS, LOCATION_NAMES } from '../../domain/limits.js';

const plugin: FastifyPluginAsync = async (app) => {
  const list = LOCATIONS.map((region) => ({ region, name: LOCATION_NAMES[region] }));
  app.get('/v1/locations', { config: { auth: 'public' } }, async () => list);
};

export default plugin;
