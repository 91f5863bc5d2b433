// Fastify wiring: validation compilers, the spec's error body, authentication, route plugins.

import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ApiError, countingFailures, errorBody, tooManyRequests } from './errors.js';
import { discard } from '../stream-memory.js';
import { unstorableTextAt } from '../domain/text.js';
import type { Deps } from './deps.js';
import accounts from './routes/accounts.js';
import locations from './routes/locations.js';
import privateLocations from './routes/private-locations.js';
import checks from './routes/checks.js';
import { checkTypePlugins } from './routes/check-types.js';
import runtimes from './routes/runtimes.js';
import artifacts from './routes/artifacts.js';
import variables from './routes/variables.js';
import checkSessions from './routes/check-sessions.js';
import checkGroups from './routes/check-groups.js';
import maintenanceWindows from './routes/maintenance-windows.js';
import statusPageServices from './routes/status-page-services.js';
import dashboards from './routes/dashboards.js';
import serviceIncidents from './routes/service-incidents.js';
import statusPages from './routes/status-pages.js';
import badges from './routes/badges.js';
import pages from './routes/pages.js';
import snippets from './routes/snippets.js';
import alertChannels, { alertHistory } from './routes/alert-channels.js';
import checkResults from './routes/check-results.js';
import checkStatuses from './routes/check-statuses.js';
import agentProtocol from './routes/agent-protocol.js';
import metrics from './routes/metrics.js';

declare module 'fastify' {
  interface FastifyRequest {
    accountId: string;
  }
  interface FastifyContextConfig {
    /** 'public': no key needed; 'agent': a private-location key (checked by the route). */
    auth?: 'public' | 'agent';
  }
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

// Bodies are validated strictly (a string is not a number); query strings and paths arrive as
// text, so there the declared types are coerced.
function compilers() {
  const body = addFormats(new Ajv({ useDefaults: true, coerceTypes: false, allErrors: false, strict: false }));
  const text = addFormats(new Ajv({ useDefaults: true, coerceTypes: 'array', allErrors: false, strict: false }));
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    onFirstUse(() => (httpPart === 'body' ? body : text).compile(schema));
}

/**
 * A validator compiled when a request first needs it. Compiling every route's schemas took a
 * third of the service's start-up CPU, mostly for routes a given installation rarely calls.
 */
function onFirstUse(compile: () => ValidateFunction) {
  let validate: ValidateFunction | undefined;
  const check = (data: unknown, parent?: object) => {
    validate ??= compile();
    const ok = validate(data, parent as Parameters<ValidateFunction>[1]);
    check.errors = validate.errors;
    return ok;
  };
  check.errors = null as ErrorObject[] | null | undefined;
  // Fastify gives the request as the parent, so Ajv can replace a root value it coerces, only to
  // validators that carry Ajv's schemaEnv.
  check.schemaEnv = true;
  return check;
}

function describeValidation(errors: ErrorObject[], context: string): { message: string; attributes: Record<string, unknown> } {
  const e = errors[0];
  let path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (e.keyword === 'required') path = path ? `${path}.${e.params.missingProperty}` : String(e.params.missingProperty);
  const field = context === 'body' ? path || 'body' : `${context}${path ? `.${path}` : ''}`;
  let rule = e.message ?? 'is invalid';
  if (e.keyword === 'required') rule = 'is required';
  if (e.keyword === 'additionalProperties') rule = `has an unknown property ${JSON.stringify(e.params.additionalProperty)}`;
  if (e.keyword === 'enum') rule = `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  return { message: `${field} ${rule}`, attributes: { field, rule: e.keyword, ...e.params } };
}

const KEY_CACHE_MS = 10_000;
/** An oversized body up to this size is read and dropped after the 413 (see readRestOfBody). */
const DRAIN_OVERSIZED_MAX_BYTES = 64 * 1024 * 1024;

/**
 * A client still sending a body it declared too large sees its connection reset (EPIPE) instead
 * of the 413 if the service closes it with the rest unread, as Fastify asks after a body it
 * refuses. Up to a bound the rest is read and dropped and the connection stays open; past it,
 * or without a declared length, it closes.
 */
function readRestOfBody(req: FastifyRequest, reply: FastifyReply): void {
  const declared = Number(req.headers['content-length']);
  if (req.raw.complete || req.raw.readableFlowing || !(declared <= DRAIN_OVERSIZED_MAX_BYTES)) return;
  reply.removeHeader('connection');
  discard(req.raw);
}

export async function buildServer(deps: Deps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: deps.config.bodyLimitBytes,
    return503OnClosing: true,
    // Errors Fastify raises before a route runs (a path that is not valid percent-encoded UTF-8,
    // a path parameter past its length limit) get the same error body as everything else.
    frameworkErrors: (err, _req, reply: FastifyReply) => {
      const status = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
      const message =
        status === 414
          ? 'A path parameter is longer than the API takes'
          : 'The URL is not valid: a path parameter or query string is not valid percent-encoded UTF-8';
      void reply.code(status).send(errorBody(status, message, { code: err.code }));
    },
  });
  app.setValidatorCompiler(compilers());
  // LOG_LEVEL=DEBUG lists every route at start: for operators' tooling (and the fuzz test).
  const routes: string[] = [];
  app.addHook('onRoute', (r) => {
    for (const m of [r.method].flat()) if (m !== 'HEAD') routes.push(`${m} ${r.url}`);
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof ApiError) {
      if (err.statusCode === 429) reply.header('retry-after', String(err.attributes.retryAfterSeconds));
      return reply.code(err.statusCode).send(errorBody(err.statusCode, err.message, err.attributes));
    }
    if (err.validation) {
      const { message, attributes } = describeValidation(err.validation, err.validationContext ?? 'body');
      return reply.code(400).send(errorBody(400, message, attributes));
    }
    const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 413) readRestOfBody(req, reply);
    if (status === 500) deps.log.error({ err, url: req.url.split('?')[0], method: req.method }, 'request failed');
    const message =
      status === 500
        ? 'Internal Server Error'
        : status === 413
          ? `Request body is larger than ${req.routeOptions.bodyLimit ?? deps.config.bodyLimitBytes} bytes, the most this route takes`
          : err.message;
    return reply.code(status).send(errorBody(status, message, err.code ? { code: err.code } : {}));
  });
  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(errorBody(404, `Route ${req.method} ${req.url.split('?')[0]} not found`));
  });

  const keyCache = new Map<string, { accountId: string | null; at: number }>();
  app.decorateRequest('accountId', '');
  app.addHook('onRequest', async (req: FastifyRequest) => {
    const auth = req.routeOptions.config?.auth;
    if (auth === 'public' || auth === 'agent' || !req.routeOptions.url) return;
    await countingFailures(deps.authFailures, req.ip, () => authenticate(req));
  });
  async function authenticate(req: FastifyRequest): Promise<void> {
    const header = req.headers.authorization;
    const raw = header && /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    if (!raw) throw new ApiError(401, 'Missing API key: send Authorization: Bearer <API_KEY>');
    let hit = keyCache.get(raw);
    if (!hit || Date.now() - hit.at > KEY_CACHE_MS) {
      hit = { accountId: await deps.store.accounts.byKey(raw), at: Date.now() };
      if (keyCache.size > 1000) keyCache.clear();
      keyCache.set(raw, hit);
    }
    if (!hit.accountId) throw new ApiError(401, 'Invalid API key');
    const wait = deps.rateLimit.take(`api ${raw}`);
    if (wait > 0) throw tooManyRequests(deps.rateLimit.perSecond, wait);
    const claimed = req.headers['x-service-account'] ?? req.headers['x-checkly-account'];
    if (claimed !== undefined && claimed !== hit.accountId)
      throw new ApiError(401, 'The API key does not belong to the account named in the account header');
    req.accountId = hit.accountId;
  }

  // Text no database stores (NUL, unpaired surrogates) is refused here, before any route sees it.
  // Agent routes are exempt: their bodies are large and are the agent's own output.
  app.addHook('preValidation', async (req: FastifyRequest) => {
    if (req.routeOptions.config?.auth === 'agent') return;
    for (const [where, value] of [
      ['params', req.params],
      ['querystring', req.query],
      ['body', req.body],
    ] as const) {
      const at = unstorableTextAt(value, where);
      if (at !== null) throw new ApiError(400, `${at} contains a NUL character or an unpaired surrogate`, { field: at, rule: 'text' });
    }
  });

  for (const plugin of [
    accounts,
    locations,
    privateLocations,
    checks,
    ...checkTypePlugins,
    checkResults,
    checkStatuses,
    variables,
    checkSessions,
    checkGroups,
    maintenanceWindows,
    statusPageServices,
    dashboards,
    serviceIncidents,
    statusPages,
    badges,
    pages,
    snippets,
    alertChannels,
    alertHistory,
    runtimes,
    artifacts,
    agentProtocol,
    metrics,
  ]) {
    await app.register(plugin, deps);
  }
  await app.ready();
  deps.log.debug({ routes }, 'routes');
  return app;
}
