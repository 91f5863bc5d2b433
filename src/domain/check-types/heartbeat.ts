// Heartbeat checks: passive, they wait for pings; their routes (with the ping endpoints) are
// their own, in the service.

import { declareCheckType } from './declare.js';

export default declareCheckType({
  path: 'heartbeat',
  lane: 'passive',
  takesScript: true,
  frequencies: [],
  responseTimeMax: 0,
  degradedDefault: 10_000,
  maxDefault: 20_000,
  request: null,
  customRoutes: true,
});
