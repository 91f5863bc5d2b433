// Check results: op 7 (paged), op 8 (one), and the cursor-paged /v2 list.

import type { FastifyPluginAsync } from 'fastify';
import { LOCATIONS, CHECK_TYPES, PAGE_LIMIT_MAX, PAGE_MAX, RESULTS_WINDOW_SECONDS, SLUG_PATTERN } from '../../domain/limits.js';
import { toApi, type ResultFilter } from '../store/results.js';
import { ApiError, notFound } from '../errors.js';
import type { Deps } from '../deps.js';

const DATA_CENTERS = new Set<string>(LOCATIONS);

const common = {
  limit: { type: 'integer', minimum: 1, maximum: PAGE_LIMIT_MAX, default: 10 },
  from: { type: 'number', minimum: 0 },
  to: { type: 'number', minimum: 0 },
  // Data-center ids per the spec; private-location slugs so their runs can be filtered too.
  location: {
    anyOf: [
      { type: 'string', enum: [...LOCATIONS] },
      { type: 'string', pattern: SLUG_PATTERN },
    ],
  },
  checkType: { type: 'string', enum: [...CHECK_TYPES] },
  hasFailures: { type: 'boolean' },
  resultType: { type: 'string', enum: ['FINAL', 'ATTEMPT', 'ALL'], default: 'FINAL' },
};
const v1Query = { type: 'object', properties: { ...common, page: { type: 'number', exclusiveMinimum: 0, maximum: PAGE_MAX, default: 1 } } };
const v2Query = {
  type: 'object',
  properties: { ...common, nextId: { type: 'string', maxLength: 200 }, fields: { type: 'string', maxLength: 1000 } },
};
const params = { type: 'object', required: ['checkId'], properties: { checkId: { type: 'string', minLength: 1 } } };
const oneParams = {
  type: 'object',
  required: ['checkId', 'checkResultId'],
  properties: { checkId: { type: 'string' }, checkResultId: { type: 'string' } },
};

type Query = {
  limit: number;
  page?: number;
  from?: number;
  to?: number;
  location?: string;
  checkType?: string;
  hasFailures?: boolean;
  resultType: 'FINAL' | 'ATTEMPT' | 'ALL';
  nextId?: string;
  fields?: string;
};

function filter(checkId: string, accountId: string, q: Query): ResultFilter {
  const fromS = q.from ?? Date.now() / 1000 - RESULTS_WINDOW_SECONDS;
  const toS = q.to ?? fromS + RESULTS_WINDOW_SECONDS;
  if (toS <= fromS)
    throw new ApiError(400, 'querystring.to must be after querystring.from', { field: 'querystring.to', rule: 'after from' });
  return {
    checkId,
    accountId,
    fromMs: fromS * 1000,
    toMs: toS * 1000,
    location: q.location,
    checkType: q.checkType,
    hasFailures: q.hasFailures,
    resultType: q.resultType,
  };
}

function decodeCursor(raw: string): { at: number; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (typeof at === 'number' && typeof id === 'string') return { at, id };
  } catch {
    /* fall through */
  }
  throw new ApiError(400, 'querystring.nextId is not a cursor this API returned', { field: 'querystring.nextId', rule: 'cursor' });
}

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  async function requireCheck(accountId: string, checkId: string) {
    if (!(await deps.store.checks.get(checkId, accountId))) throw notFound('Check', checkId);
  }
  /** A location filter names a data center or one of the account's private locations. */
  async function requireLocation(accountId: string, location: string | undefined) {
    if (location === undefined || DATA_CENTERS.has(location) || (await deps.store.privateLocations.knownSlugs(accountId, [location])).size)
      return;
    throw new ApiError(400, `querystring.location must be a data-center location or the slugName of one of your private locations`, {
      field: 'querystring.location',
      rule: 'location',
    });
  }

  app.get<{ Params: { checkId: string }; Querystring: Query }>(
    '/v1/check-results/:checkId',
    { schema: { params, querystring: v1Query } },
    async (req) => {
      await requireCheck(req.accountId, req.params.checkId);
      await requireLocation(req.accountId, req.query.location);
      const q = req.query;
      const offset = (Math.ceil(q.page ?? 1) - 1) * q.limit;
      const rows = await deps.store.results.page(filter(req.params.checkId, req.accountId, q), q.limit, offset);
      return rows.map(toApi);
    },
  );

  app.get<{ Params: { checkId: string; checkResultId: string } }>(
    '/v1/check-results/:checkId/:checkResultId',
    { schema: { params: oneParams } },
    async (req) => {
      const row = await deps.store.results.get(req.accountId, req.params.checkId, req.params.checkResultId);
      if (!row) throw notFound('Check result', req.params.checkResultId);
      return toApi(row);
    },
  );

  app.get<{ Params: { checkId: string }; Querystring: Query }>(
    '/v2/check-results/:checkId',
    { schema: { params, querystring: v2Query } },
    async (req) => {
      await requireCheck(req.accountId, req.params.checkId);
      await requireLocation(req.accountId, req.query.location);
      const q = req.query;
      const f = filter(req.params.checkId, req.accountId, q);
      const rows = await deps.store.results.afterCursor(f, q.limit + 1, q.nextId ? decodeCursor(q.nextId) : null);
      const page = rows.slice(0, q.limit);
      const last = page[page.length - 1];
      const nextId =
        rows.length > q.limit && last ? Buffer.from(JSON.stringify([last.created_at.getTime(), last.id])).toString('base64url') : null;
      const fields = q.fields
        ? q.fields
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : null;
      const entries = page.map((r) => {
        const full = toApi(r) as Record<string, unknown>;
        return fields ? Object.fromEntries(fields.filter((k) => k in full).map((k) => [k, full[k]])) : full;
      });
      return { length: entries.length, entries, nextId };
    },
  );
};

export default plugin;
