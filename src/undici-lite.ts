// undici without its index: the index also loads fetch, WebSocket, caches and mocks, about 6 MB
// of resident memory the agent never uses. This loads the parts Outpost uses and wires them the
// way the index does (the request API lives on Dispatcher.prototype; ProxyAgent relies on it).
// These lib/ paths are not undici's public API, so package.json pins undici to one exact version:
// an upgrade is a deliberate change, checked by the tests that load this file.

import { createRequire } from 'node:module';
import type { Dispatcher, Client as ClientType, EnvHttpProxyAgent as EnvHttpProxyAgentType } from 'undici';

const require = createRequire(import.meta.url);
const api = require('undici/lib/api/index.js') as Record<string, unknown> & {
  request: (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
};
const DispatcherBase = require('undici/lib/dispatcher/dispatcher.js') as { prototype: object };
Object.assign(DispatcherBase.prototype, api);

export const Client = require('undici/lib/dispatcher/client.js') as typeof ClientType;
export const EnvHttpProxyAgent = require('undici/lib/dispatcher/env-http-proxy-agent.js') as typeof EnvHttpProxyAgentType;

/** `request` on a given dispatcher. */
export function requestOn(dispatcher: Dispatcher, opts: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return api.request.call(dispatcher, opts);
}
