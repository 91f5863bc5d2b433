// Keys to a private status page or dashboard: made (the raw key shown once) and revoked through
// the API, listed masked on the page's resource.

import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';
import { notFound } from '../errors.js';
import type { PageKeyRow, PageKind } from '../store/page-keys.js';

export const pageKeyView = (k: PageKeyRow) => ({
  id: k.id,
  maskedKey: k.masked_key,
  created_at: k.created_at.toISOString(),
  updated_at: k.updated_at ? k.updated_at.toISOString() : null,
});

/** POST <path>/keys and DELETE <path>/keys/:keyId for pages found by `pageOf` (which 404s). */
export function pageKeyRoutes(
  app: FastifyInstance,
  deps: Deps,
  o: {
    kind: PageKind;
    path: string;
    params: { type: string; required: string[]; properties: Record<string, object> };
    pageOf(accountId: string, params: Record<string, string>): Promise<{ id: string | number }>;
  },
): void {
  const withKey = {
    ...o.params,
    required: [...o.params.required, 'keyId'],
    properties: { ...o.params.properties, keyId: { type: 'string', format: 'uuid' } },
  };
  app.post<{ Params: Record<string, string> }>(`${o.path}/keys`, { schema: { params: o.params } }, async (req, reply) => {
    const page = await o.pageOf(req.accountId, req.params);
    const { row, raw } = await deps.store.pageKeys.create(req.accountId, o.kind, String(page.id));
    return reply.code(201).send({ ...pageKeyView(row), rawKey: raw });
  });
  app.delete<{ Params: Record<string, string> }>(`${o.path}/keys/:keyId`, { schema: { params: withKey } }, async (req, reply) => {
    const page = await o.pageOf(req.accountId, req.params);
    if (!(await deps.store.pageKeys.delete(o.kind, String(page.id), req.params.keyId))) throw notFound('Key', req.params.keyId);
    return reply.code(204).send();
  });
}
