// The job protocol spoken by agents (docs/agent-protocol.md). Agents authenticate with a
// private-location key; the built-in agent of `outpost start` with a token minted at start.

import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { timingSafeEqual, randomUUID } from 'node:crypto';
import { TooLarge } from '../artifacts/store.js';
import { discard } from '../../stream-memory.js';
import { leaseAnswerJson } from '../job-json.js';
import { LOCATIONS, ARTIFACT_MAX_BYTES } from '../../domain/limits.js';
import { ApiError, countingFailures, tooManyRequests } from '../errors.js';
import { hashKey } from '../secrets.js';
import type { Deps } from '../deps.js';
import type { Lessee } from '../jobs.js';
import { FULL_LANE, runtimeLane } from '../scheduler.js';
import { PROTOCOL_VERSION, type RunResult } from '../../domain/run.js';

const DATA_CENTER_QUEUES = LOCATIONS.map((l) => `dc:${l}`);
const RESULTS_BODY_LIMIT = 64 * 1024 * 1024;
const SEEN_WRITE_INTERVAL_MS = 30_000;

interface Caller {
  keyId: string | null;
  privateLocationId: string | null;
  slugName: string | null;
  proxyUrl: string | null;
  queueKeys: string[];
}

const agentId = { type: 'string', minLength: 1, maxLength: 128 };

/**
 * The service's name for an agent: the id it chose, within the key it authenticates with. Ids
 * are shown on the agent's /health; scoped like this, another key can neither lease, extend,
 * release nor deliver as that agent, nor deregister it.
 */
const agentRef = (c: Caller, id: string) => `${c.keyId ?? 'built-in'}/${id}`;
const registerBody = {
  type: 'object',
  required: ['agentId', 'version'],
  properties: {
    agentId,
    version: { type: 'string', minLength: 1, maxLength: 64 },
    profile: { type: 'string', enum: ['full', 'uptime'], default: 'full' },
    runtimes: { type: 'array', items: { type: 'string' }, default: [] },
    concurrency: { type: 'integer', minimum: 1 },
  },
};
/** Results of runs: delivered on their own, or with the next lease. */
const results = {
  type: 'array',
  maxItems: 10_000,
  items: {
    type: 'object',
    required: ['jobId', 'startedAt', 'stoppedAt', 'responseTime', 'hasFailures', 'hasErrors'],
    properties: {
      jobId: { type: 'string' },
      startedAt: { type: 'number' },
      stoppedAt: { type: 'number' },
      responseTime: { type: 'number', minimum: 0 },
      hasFailures: { type: 'boolean' },
      hasErrors: { type: 'boolean' },
      isDegraded: { type: 'boolean', default: false },
      overMaxResponseTime: { type: 'boolean', default: false },
      // A type list, not anyOf: every passing run's null would otherwise build a validation
      // error for the string branch first (a few per cent of ingest's CPU).
      error: { type: ['string', 'null'], default: null },
      detail: { type: 'object', default: {} },
    },
  },
};
const leaseBody = {
  type: 'object',
  required: ['agentId', 'max'],
  properties: {
    agentId,
    max: { type: 'integer', minimum: 0, maximum: 1000 },
    /** Free browser slots: how many browser, multi-step and Playwright jobs it may take. */
    maxBrowser: { type: 'integer', minimum: 0, maximum: 1000, default: 0 },
    waitMs: { type: 'integer', minimum: 0, maximum: 120_000, default: 0 },
    running: { type: 'array', items: { type: 'string' }, default: [] },
    results,
  },
};
const resultsBody = {
  type: 'object',
  required: ['agentId', 'results'],
  properties: { agentId, results },
};
const eventsBody = {
  type: 'object',
  required: ['agentId', 'events'],
  properties: { agentId, events: { type: 'array', maxItems: 100, items: { type: 'object' } } },
};

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  const lastSeenWrite = new Map<string, number>();

  // Agents authenticate before their bodies are read: a request without a valid key is
  // answered 401 from its headers, and its body (results may be tens of MB) is never parsed.
  const callers = new WeakMap<FastifyRequest, Caller>();
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.config?.auth === 'agent')
      callers.set(req, await countingFailures(deps.authFailures, req.ip, () => authenticate(req)));
  });
  /** Who sent the request, as onRequest established. */
  function caller(req: FastifyRequest): Caller {
    const c = callers.get(req);
    if (!c) throw new ApiError(401, 'Missing private-location key: send Authorization: Bearer <PRIVATE_LOCATION_KEY>');
    return c;
  }

  async function authenticate(req: FastifyRequest): Promise<Caller> {
    const raw = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!raw) throw new ApiError(401, 'Missing private-location key: send Authorization: Bearer <PRIVATE_LOCATION_KEY>');
    const internal = deps.internalAgentToken;
    if (internal && raw.length === internal.length && timingSafeEqual(Buffer.from(raw), Buffer.from(internal))) {
      return { keyId: null, privateLocationId: null, slugName: null, proxyUrl: null, queueKeys: DATA_CENTER_QUEUES };
    }
    const hash = hashKey(raw);
    let grant = deps.agents.cachedGrant(hash);
    if (!grant) {
      const loc = await deps.store.privateLocations.byKey(hash);
      if (!loc) throw new ApiError(401, 'Invalid or revoked private-location key');
      grant = { keyId: loc.key_id, privateLocationId: loc.id, accountId: loc.account_id, slugName: loc.slug_name, proxyUrl: loc.proxy_url };
      deps.agents.cacheGrant(hash, grant);
    }
    const wait = deps.rateLimit.take(`agent ${grant.keyId}`);
    if (wait > 0) throw tooManyRequests(deps.rateLimit.perSecond, wait);
    const last = lastSeenWrite.get(grant.privateLocationId) ?? 0;
    if (Date.now() - last > SEEN_WRITE_INTERVAL_MS) {
      lastSeenWrite.set(grant.privateLocationId, Date.now());
      await deps.store.privateLocations.markSeen(grant.privateLocationId);
    }
    return {
      keyId: grant.keyId,
      privateLocationId: grant.privateLocationId,
      slugName: grant.slugName,
      proxyUrl: grant.proxyUrl,
      queueKeys: [`pl:${grant.privateLocationId}`],
    };
  }

  /**
   * An uptime agent reads only the uptime lane of its queues; a full agent also the lane of
   * other network checks, and the lane of each runtime it carries.
   */
  function lanes(c: Caller, agentId: string): { all: string[]; browser: Set<string> } {
    const agent = deps.agents.get(agentId);
    if (agent?.profile === 'uptime') return { all: c.queueKeys, browser: new Set() };
    const browser = new Set(c.queueKeys.flatMap((k) => (agent?.runtimes ?? []).map((r) => k + runtimeLane(r))));
    return { all: [...c.queueKeys.flatMap((k) => [k, k + FULL_LANE]), ...browser], browser };
  }

  const opts = (body: object, extra: object = {}) => ({ schema: { body }, config: { auth: 'agent' as const }, ...extra });

  app.post<{ Body: { agentId: string; version: string; profile: string; runtimes: string[] } }>(
    '/agent/v1/register',
    opts(registerBody),
    async (req) => {
      const c = caller(req);
      const b = req.body;
      deps.agents.seen(agentRef(c, b.agentId), {
        id: b.agentId,
        version: b.version,
        profile: b.profile,
        runtimes: b.runtimes,
        privateLocationId: c.privateLocationId,
      });
      deps.log.info({ agentId: b.agentId, version: b.version, location: c.slugName ?? 'data centers' }, 'agent registered');
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentId: b.agentId,
        location: c.privateLocationId ? { privateLocationId: c.privateLocationId, slugName: c.slugName } : { dataCenters: [...LOCATIONS] },
        leaseSeconds: deps.config.leaseSeconds,
        pollSeconds: deps.config.pollSeconds,
      };
    },
  );

  app.post<{ Body: { agentId: string; max: number; maxBrowser: number; waitMs: number; running: string[]; results?: RunResult[] } }>(
    '/agent/v1/jobs/lease',
    opts(leaseBody, { bodyLimit: RESULTS_BODY_LIMIT }),
    async (req, reply) => {
      const c = caller(req);
      const b = req.body;
      const me = agentRef(c, b.agentId);
      if (!deps.agents.touch(me)) throw new ApiError(409, 'Unknown agent: register first', { agentId: b.agentId });
      deps.jobs.extend(me, b.running);
      const l = lanes(c, me);
      // Results that came with the lease are stored before it waits for jobs.
      const accepted = b.results?.length ? await deps.jobs.complete(b.results, l.all) : undefined;
      const maxBrowser = Math.min(b.max, b.maxBrowser);
      // Without a free browser slot the runtime lanes are not read at all (nor waited on).
      const queueKeys = maxBrowser > 0 ? l.all : l.all.filter((k) => !l.browser.has(k));
      const lessee: Lessee = { agentId: me, queueKeys, keyId: c.keyId, browserKeys: l.browser, maxBrowser };
      const gone = new AbortController();
      // 'close' before we answer means the agent went away: its jobs must not be handed to nobody.
      // After the answer it is the normal end (aborting then would build an error for nothing).
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) gone.abort();
      });
      const jobs = await deps.jobs.lease(lessee, b.max, Math.min(b.waitMs, deps.config.pollSeconds * 1000), gone.signal);
      if (jobs === 'revoked') throw new ApiError(401, 'Invalid or revoked private-location key');
      deps.agents.touch(me);
      // API checks from a private location go out through its proxy, when it has one.
      const out = c.proxyUrl ? jobs.map((j) => (j.checkType === 'API' ? { ...j, proxyUrl: c.proxyUrl } : j)) : jobs;
      // `now`: the service's clock, for agents that report the skew.
      return reply.type('application/json; charset=utf-8').send(leaseAnswerJson(out, accepted, Date.now()));
    },
  );

  app.post<{ Body: { agentId: string; results: RunResult[] } }>(
    '/agent/v1/results',
    opts(resultsBody, { bodyLimit: RESULTS_BODY_LIMIT }),
    async (req) => {
      const c = caller(req);
      const me = agentRef(c, req.body.agentId);
      deps.agents.touch(me);
      const accepted = await deps.jobs.complete(req.body.results, lanes(c, me).all);
      return { accepted };
    },
  );

  const deregisterBody = {
    type: 'object',
    required: ['agentId'],
    properties: { agentId, release: { type: 'array', items: { type: 'string' }, default: [] } },
  };
  app.post<{ Body: { agentId: string; release: string[] } }>('/agent/v1/deregister', opts(deregisterBody), async (req) => {
    const me = agentRef(caller(req), req.body.agentId);
    deps.jobs.release(me, req.body.release);
    deps.agents.remove(me);
    deps.log.info({ agentId: req.body.agentId }, 'agent deregistered');
    return { ok: true };
  });

  // Artifacts arrive as a raw stream straight to the store: no parser may buffer them, so this
  // route lives in a child context without the JSON parser.
  app.register(async (child) => {
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', (_req, _payload, done) => done(null));
    const query = {
      type: 'object',
      required: ['agentId', 'jobId', 'name'],
      properties: {
        agentId,
        jobId: { type: 'string', minLength: 1 },
        name: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._-]+$' },
        type: { type: 'string', maxLength: 100, default: 'application/octet-stream' },
      },
    };
    child.post<{ Querystring: { agentId: string; jobId: string; name: string; type: string } }>(
      '/agent/v1/artifacts',
      { schema: { querystring: query }, config: { auth: 'agent' as const }, bodyLimit: ARTIFACT_MAX_BYTES },
      async (req, reply) => {
        const c = caller(req);
        const { agentId: who, jobId, name, type } = req.query;
        const q = deps.jobs.leased(jobId, agentRef(c, who));
        if (!q || !lanes(c, agentRef(c, who)).all.includes(q.queueKey))
          throw new ApiError(409, `job ${jobId} is not running on agent ${who}`, { jobId });
        // The answer goes out at once; Node then reads and drops the rest of the body, so the
        // agent sees the 413 instead of a connection reset in the middle of its upload.
        const tooLarge = (size?: number) => {
          return new ApiError(
            413,
            `artifact ${name} is larger than the ${ARTIFACT_MAX_BYTES / 1024 / 1024} MB limit${size ? ` (${size} bytes)` : ''}`,
            { field: 'body', rule: 'maxBytes', limit: ARTIFACT_MAX_BYTES },
          );
        };
        const declared = Number(req.headers['content-length']);
        if (declared > ARTIFACT_MAX_BYTES) {
          discard(req.raw);
          throw tooLarge(declared);
        }
        const id = randomUUID().replace(/-/g, '');
        let size: number;
        try {
          size = await deps.artifacts.put(id, req.raw, ARTIFACT_MAX_BYTES);
        } catch (e) {
          if (e instanceof TooLarge) throw tooLarge();
          throw e;
        }
        await deps.store.artifacts.insert({ id, accountId: q.accountId, checkId: q.job.checkId, jobId, name, contentType: type, size });
        return reply.code(201).send({ id, name, size, contentType: type, url: `${deps.baseUrl()}/v1/artifacts/${id}` });
      },
    );
  });

  // Error-level events agents report (EXTERNAL_OBSERVABILITY=on): logged here so operators see
  // agent trouble in one place.
  app.post<{ Body: { agentId: string; events: Record<string, unknown>[] } }>('/agent/v1/events', opts(eventsBody), async (req) => {
    const c = caller(req);
    for (const e of req.body.events)
      deps.log.warn({ agentId: req.body.agentId, location: c.slugName ?? 'data centers', event: e }, 'agent reported an error');
    return { ok: true };
  });
};

export default plugin;
