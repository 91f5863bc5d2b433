// Status pages: create, list (by cursor), read, replace, delete. A page shows cards, each of
// status-page services; its url (a slug) and custom domain are unique across pages.

import type { FastifyPluginAsync } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps.js';
import { ApiError, notFound } from '../errors.js';
import { cursorPage } from './paging.js';
import type { Card, StatusPageConfig, StatusPageRow } from '../store/status-pages.js';
import { serviceView } from './status-page-services.js';
import { pageKeyRoutes, pageKeyView } from './page-keys.js';
import type { ServiceRow } from '../store/status-page-services.js';
import type { SubscriptionRow } from '../store/subscriptions.js';

const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
const color = { type: 'string', pattern: '^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$' };
const palette = { type: 'object', additionalProperties: color, maxProperties: 12 };
const link = nullable({ type: 'string', maxLength: 2048 });
const body = {
  type: 'object',
  required: ['name', 'url', 'cards'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    url: { type: 'string', pattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$' },
    description: nullable({ type: 'string', maxLength: 500 }),
    customDomain: nullable({ type: 'string', pattern: '^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$' }),
    themeColors: nullable({ type: 'object', properties: { light: palette, dark: palette } }),
    logo: link,
    logoDark: link,
    redirectTo: link,
    favicon: link,
    defaultTheme: { type: 'string', enum: ['LIGHT', 'DARK', 'AUTO'], default: 'AUTO' },
    isPrivate: { type: 'boolean', default: false },
    cards: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        required: ['name', 'services'],
        properties: {
          id: { type: 'string', maxLength: 100 },
          name: { type: 'string', minLength: 1, maxLength: 255 },
          services: {
            type: 'array',
            maxItems: 100,
            items: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } },
          },
        },
      },
    },
  },
};
type Body = { name: string; url: string; customDomain?: string | null; [field: string]: unknown } & {
  cards: { id?: string; name: string; services: { id: string }[] }[];
};
const params = {
  type: 'object',
  required: ['statusPageId'],
  properties: { statusPageId: { type: 'string', minLength: 1, maxLength: 100 } },
};
// An address as HTML forms check one: something@host, no spaces, within the SMTP limits.
const email = { type: 'string', maxLength: 254, pattern: '^\\s*[^\\s@]{1,64}@[^\\s@]+\\.[^\\s@]+\\s*$' };
const bulkBody = {
  type: 'object',
  required: ['subscriptions'],
  properties: {
    subscriptions: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: { type: 'object', required: ['type', 'config'], properties: { type: { type: 'string', enum: ['EMAIL'] }, config: email } },
    },
    autoVerify: { type: 'boolean', default: false },
  },
};
const listQuery = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    nextId: { type: 'string', minLength: 1, maxLength: 100 },
  },
};

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  const store = deps.store.statusPages;

  const show = async (accountId: string, rows: StatusPageRow[]) => {
    const services = new Map<string, ServiceRow>((await deps.store.statusPageServices.list(accountId)).map((s) => [s.id, s]));
    const keys = await deps.store.pageKeys.list(
      'status-page',
      rows.map((r) => r.id),
    );
    return rows.map((r) => {
      const { cards, ...rest } = r.config;
      return {
        id: r.id,
        accountId: r.account_id,
        ...rest,
        whiteLabel: false,
        cards: cards.map((c) => ({
          id: c.id,
          name: c.name,
          services: c.serviceIds.flatMap((id) => (services.has(id) ? [serviceView(services.get(id)!)] : [])),
          created_at: c.created_at,
          updated_at: c.updated_at,
        })),
        keys: keys.filter((k) => k.page_id === r.id).map(pageKeyView),
        created_at: r.created_at.toISOString(),
        updated_at: r.updated_at ? r.updated_at.toISOString() : null,
      };
    });
  };
  const pageOf = async (accountId: string, id: string) => {
    const row = await store.get(accountId, id);
    if (!row) throw notFound('Status page', id);
    return row;
  };

  /** The page to store: services checked, cards keeping their ids and times where they had them. */
  const configOf = async (accountId: string, b: Body, stored: StatusPageRow | null): Promise<StatusPageConfig> => {
    for (const card of b.cards)
      for (const s of card.services)
        if (!(await deps.store.statusPageServices.get(accountId, s.id)))
          throw new ApiError(400, `cards: card "${card.name}" names no status-page service with id ${s.id}`, {
            field: 'cards',
            rule: 'exists',
          });
    const now = new Date().toISOString();
    const cards: Card[] = b.cards.map((c) => {
      const old = stored?.config.cards.find((x) => x.id === c.id);
      return {
        id: old?.id ?? randomUUID(),
        name: c.name,
        serviceIds: c.services.map((s) => s.id),
        created_at: old?.created_at ?? now,
        updated_at: old ? now : null,
      };
    });
    const config: StatusPageConfig = {
      description: null,
      themeColors: null,
      logo: null,
      logoDark: null,
      redirectTo: null,
      favicon: null,
      ...b,
      customDomain: b.customDomain ?? null,
      cards,
    };
    const taken = await store.taken(config, stored?.id ?? null);
    if (taken)
      throw new ApiError(409, `${taken} ${JSON.stringify(config[taken])} is used by another status page`, { field: taken, rule: 'unique' });
    return config;
  };

  app.get<{ Querystring: { limit: number; nextId?: string } }>('/v1/status-pages', { schema: { querystring: listQuery } }, async (req) => {
    const all = await store.list(req.accountId);
    const { page, nextId } = cursorPage(all, req.query.limit, req.query.nextId, 'status page');
    return { length: page.length, entries: await show(req.accountId, page), nextId };
  });

  app.post<{ Body: Body }>('/v1/status-pages', { schema: { body } }, async (req, reply) => {
    const row = await store.insert(req.accountId, await configOf(req.accountId, req.body, null));
    return reply.code(201).send((await show(req.accountId, [row]))[0]);
  });

  app.get<{ Params: { statusPageId: string } }>(
    '/v1/status-pages/:statusPageId',
    { schema: { params } },
    async (req) => (await show(req.accountId, [await pageOf(req.accountId, req.params.statusPageId)]))[0],
  );

  app.put<{ Params: { statusPageId: string }; Body: Body }>('/v1/status-pages/:statusPageId', { schema: { params, body } }, async (req) => {
    const stored = await pageOf(req.accountId, req.params.statusPageId);
    const row = await store.update(req.accountId, stored.id, await configOf(req.accountId, req.body, stored));
    return (await show(req.accountId, [row!]))[0];
  });

  app.delete<{ Params: { statusPageId: string } }>('/v1/status-pages/:statusPageId', { schema: { params } }, async (req, reply) => {
    if (!(await store.delete(req.accountId, req.params.statusPageId))) throw notFound('Status page', req.params.statusPageId);
    await deps.store.pageKeys.deleteAll('status-page', req.params.statusPageId);
    return reply.code(204).send();
  });

  // Subscribers: email addresses told of incident updates posted with notifySubscribers.
  const subscriptionView = (s: SubscriptionRow) => ({
    id: s.id,
    type: s.type,
    address: s.address,
    status: s.status,
    created_at: s.created_at.toISOString(),
    updated_at: (s.updated_at ?? s.created_at).toISOString(),
  });
  app.get<{ Params: { statusPageId: string } }>('/v1/status-pages/:statusPageId/subscriptions', { schema: { params } }, async (req) => {
    const page = await pageOf(req.accountId, req.params.statusPageId);
    return (await deps.store.subscriptions.list(page.id)).map(subscriptionView);
  });
  app.post<{ Params: { statusPageId: string }; Body: { subscriptions: { type: 'EMAIL'; config: string }[]; autoVerify: boolean } }>(
    '/v1/status-pages/:statusPageId/subscriptions/bulk',
    { schema: { params, body: bulkBody } },
    async (req, reply) => {
      const page = await pageOf(req.accountId, req.params.statusPageId);
      const addresses = [...new Set(req.body.subscriptions.map((s) => s.config.trim().toLowerCase()))];
      const { created, skipped } = await deps.store.subscriptions.subscribe(
        req.accountId,
        { id: page.id, name: page.config.name },
        addresses,
        req.body.autoVerify,
      );
      if (created.length && !req.body.autoVerify) deps.notifier.wake();
      return reply.code(201).send({
        created: created.length,
        skipped: skipped.length + req.body.subscriptions.length - addresses.length,
        status: req.body.autoVerify ? 'VERIFIED' : 'PENDING',
      });
    },
  );
  app.delete<{ Params: { statusPageId: string; subscriptionId: string } }>(
    '/v1/status-pages/:statusPageId/subscriptions/:subscriptionId',
    {
      schema: {
        params: {
          ...params,
          required: ['statusPageId', 'subscriptionId'],
          properties: { ...params.properties, subscriptionId: { type: 'string', maxLength: 100 } },
        },
      },
    },
    async (req, reply) => {
      const page = await pageOf(req.accountId, req.params.statusPageId);
      if (!(await deps.store.subscriptions.delete(page.id, req.params.subscriptionId)))
        throw notFound('Subscription', req.params.subscriptionId);
      return reply.code(204).send();
    },
  );

  pageKeyRoutes(app, deps, {
    kind: 'status-page',
    path: '/v1/status-pages/:statusPageId',
    params,
    pageOf: (accountId, p) => pageOf(accountId, p.statusPageId),
  });
};

export default plugin;
