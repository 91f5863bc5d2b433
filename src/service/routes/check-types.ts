// The create and update routes of every check type src/domain/check-types/ declares: the generic
// ones, or the type's own where its declaration says so.

import type { FastifyPluginAsync } from 'fastify';
import { CHECK_TYPES, DECLARED_CHECK_TYPES, type DeclaredCheckType } from '../../domain/check-types/index.js';
import type { Deps } from '../deps.js';
import { checkTypeRoutes } from './check-type.js';
import checksHeartbeat from './checks-heartbeat.js';

const OWN_ROUTES: Partial<Record<DeclaredCheckType, FastifyPluginAsync<Deps>>> = { HEARTBEAT: checksHeartbeat };

export const checkTypePlugins: FastifyPluginAsync<Deps>[] = DECLARED_CHECK_TYPES.map((type) => {
  if (!CHECK_TYPES[type].customRoutes) return checkTypeRoutes(type);
  const own = OWN_ROUTES[type];
  if (!own) throw new Error(`check type ${type} declares routes of its own, and none are registered`);
  return own;
});
