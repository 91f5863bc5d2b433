// Maintenance windows: list (op 14, filtered by startsAt/endsAt), read (op 15), create, update
// in part, delete. What a window pauses or silences is decided in domain/maintenance.ts.

import type { FastifyPluginAsync } from 'fastify';
import { DateTime } from 'luxon';
import { isTimeZone, REPEAT_UNITS } from '../../domain/maintenance.js';
import { PAGE_LIMIT_MAX, PAGE_MAX } from '../../domain/limits.js';
import type { Deps } from '../deps.js';
import { ApiError, notFound } from '../errors.js';
import type { WindowConfig, WindowRow } from '../store/maintenance-windows.js';

const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
const instant = { type: 'string', minLength: 10, maxLength: 40 };
const tags = { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 200 } };
const properties = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  startsAt: instant,
  endsAt: instant,
  repeatUnit: nullable({ type: 'string', enum: [...REPEAT_UNITS] }),
  repeatInterval: nullable({ type: 'integer', minimum: 1, maximum: 365 }),
  repeatEndsAt: nullable(instant),
  timezone: nullable({ type: 'string', minLength: 1, maxLength: 64 }),
  tags,
  pauseAllChecks: { type: 'boolean' },
  silenceAllAlerts: { type: 'boolean' },
  silenceAlertsTags: tags,
  description: nullable({ type: 'string', maxLength: 2000 }),
  statusPageVisibility: nullable({ type: 'object' }),
};
type Body = Partial<Record<keyof typeof properties, unknown>>;
const params = { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647 } } };
const FILTERS = ['gt', 'gte', 'lt', 'lte'] as const;
const listQuery = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: PAGE_LIMIT_MAX, default: 10 },
    page: { type: 'integer', minimum: 1, maximum: PAGE_MAX, default: 1 },
    ...Object.fromEntries(['startsAt', 'endsAt'].flatMap((f) => FILTERS.map((op) => [`${f}[${op}]`, instant]))),
  },
};

/** An instant the body or query gives: a date (midnight UTC) or a date-time with its offset. */
function instantOf(field: string, v: unknown): number {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  if (Number.isNaN(t)) throw new ApiError(400, `${field} is not a date or date-time: ${JSON.stringify(v)}`, { field, rule: 'date' });
  return t;
}

/** repeatEndsAt as the calendar date (in the window's zone) on which occurrences may last start. */
function lastDate(v: unknown, zone: string | null): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) return v;
  return DateTime.fromMillis(instantOf('repeatEndsAt', v), { zone: zone ?? 'UTC' }).toISODate();
}

const view = (r: WindowRow) => {
  const c = r.config;
  return {
    id: Number(r.id),
    ...c,
    startsAt: new Date(c.startsAt).toISOString(),
    endsAt: new Date(c.endsAt).toISOString(),
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at ? r.updated_at.toISOString() : null,
  };
};

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  const store = deps.store.maintenanceWindows;

  /** The stored config once `body` is applied over `base`, checked across fields. */
  const configOf = (body: Body, base: WindowConfig | null): WindowConfig => {
    const pick = <T>(k: keyof typeof properties, d: T): T => (body[k] === undefined ? d : (body[k] as T));
    const timezone = pick<string | null>('timezone', base?.timezone ?? null);
    if (timezone !== null && !isTimeZone(timezone))
      throw new ApiError(400, `timezone must be an IANA time zone name, such as Europe/Berlin: ${JSON.stringify(timezone)}`, {
        field: 'timezone',
        rule: 'timeZone',
      });
    const c: WindowConfig = {
      name: pick('name', base?.name ?? ''),
      startsAt: body.startsAt === undefined ? base!.startsAt : instantOf('startsAt', body.startsAt),
      endsAt: body.endsAt === undefined ? base!.endsAt : instantOf('endsAt', body.endsAt),
      repeatUnit: pick('repeatUnit', base?.repeatUnit ?? null),
      repeatInterval: pick('repeatInterval', base?.repeatInterval ?? null),
      repeatEndsAt: body.repeatEndsAt === undefined ? (base?.repeatEndsAt ?? null) : lastDate(body.repeatEndsAt, timezone),
      timezone,
      tags: pick('tags', base?.tags ?? []),
      pauseAllChecks: pick('pauseAllChecks', base?.pauseAllChecks ?? false),
      silenceAllAlerts: pick('silenceAllAlerts', base?.silenceAllAlerts ?? false),
      silenceAlertsTags: pick('silenceAlertsTags', base?.silenceAlertsTags ?? []),
      description: pick('description', base?.description ?? null),
      statusPageVisibility: pick('statusPageVisibility', base?.statusPageVisibility ?? null),
    };
    if (c.endsAt <= c.startsAt) throw new ApiError(400, 'endsAt must be after startsAt', { field: 'endsAt', rule: 'after startsAt' });
    if (c.repeatInterval !== null && c.repeatUnit === null)
      throw new ApiError(400, 'repeatInterval needs a repeatUnit', { field: 'repeatUnit', rule: 'required with repeatInterval' });
    return c;
  };

  app.get<{ Querystring: Record<string, string | number> & { limit: number; page: number } }>(
    '/v1/maintenance-windows',
    { schema: { querystring: listQuery } },
    async (req) => {
      const tests: ((w: WindowConfig) => boolean)[] = [];
      for (const field of ['startsAt', 'endsAt'] as const)
        for (const op of FILTERS) {
          const raw = req.query[`${field}[${op}]`];
          if (raw === undefined) continue;
          const t = instantOf(`${field}[${op}]`, raw);
          tests.push((w) => (op === 'gt' ? w[field] > t : op === 'gte' ? w[field] >= t : op === 'lt' ? w[field] < t : w[field] <= t));
        }
      const all = (await store.list(req.accountId)).filter((r) => tests.every((ok) => ok(r.config)));
      const { limit, page } = req.query;
      return all.slice((page - 1) * limit, page * limit).map(view);
    },
  );

  app.get<{ Params: { id: number } }>('/v1/maintenance-windows/:id', { schema: { params } }, async (req) => {
    const row = await store.get(req.accountId, req.params.id);
    if (!row) throw notFound('Maintenance window', req.params.id);
    return view(row);
  });

  app.post<{ Body: Body }>(
    '/v1/maintenance-windows',
    { schema: { body: { type: 'object', required: ['name', 'startsAt', 'endsAt', 'repeatUnit'], properties } } },
    async (req, reply) => {
      const row = await store.insert(req.accountId, configOf(req.body, null));
      await deps.maintenance.refresh(req.accountId);
      return reply.code(201).send(view(row));
    },
  );

  // Partial: what the body leaves out stays as it was.
  app.put<{ Params: { id: number }; Body: Body }>(
    '/v1/maintenance-windows/:id',
    { schema: { params, body: { type: 'object', properties } } },
    async (req) => {
      const stored = await store.get(req.accountId, req.params.id);
      if (!stored) throw notFound('Maintenance window', req.params.id);
      const row = (await store.update(req.accountId, req.params.id, configOf(req.body, stored.config)))!;
      await deps.maintenance.refresh(req.accountId);
      return view(row);
    },
  );

  app.delete<{ Params: { id: number } }>('/v1/maintenance-windows/:id', { schema: { params } }, async (req, reply) => {
    if (!(await store.delete(req.accountId, req.params.id))) throw notFound('Maintenance window', req.params.id);
    await deps.maintenance.refresh(req.accountId);
    return reply.code(204).send();
  });
};

export default plugin;
