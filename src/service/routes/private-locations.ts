// Private locations and their agent keys.

import type { FastifyPluginAsync } from 'fastify';
import { SLUG_PATTERN } from '../../domain/limits.js';
import { compareVersions } from '../agents.js';
import { ApiError, notFound } from '../errors.js';
import type { KeyRow, PrivateLocationRow } from '../store/private-locations.js';
import type { Deps } from '../deps.js';

const proxyUrl = { anyOf: [{ type: 'string', pattern: '^(https?)://[^\\s]+$' }, { type: 'null' }] };
const createBody = {
  type: 'object',
  required: ['name', 'slugName'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    slugName: { type: 'string', pattern: SLUG_PATTERN },
    icon: { type: 'string', minLength: 1, maxLength: 64 },
    proxyUrl,
  },
};
const updateBody = {
  type: 'object',
  required: ['name'],
  properties: { name: createBody.properties.name, icon: createBody.properties.icon, proxyUrl },
};
const params = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1 } } };
const keyParams = { type: 'object', required: ['id', 'keyId'], properties: { id: { type: 'string' }, keyId: { type: 'string' } } };

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The proxy address as the API shows it: the password replaced, so it is written, never read back. */
export function showProxyUrl(url: string | null): string | null {
  if (!url) return url;
  try {
    const { password } = new URL(url);
    // In the address as written (URL would also normalise the rest of it).
    return password ? url.replace(`:${password}@`, ':****@') : url;
  } catch {
    return null;
  }
}

/** An update that sends back the address as shown keeps the stored one (and its password). */
function keepProxyUrl(sent: string | null | undefined, stored: string | null): string | null | undefined {
  return sent !== undefined && sent !== null && stored && sent === showProxyUrl(stored) ? stored : sent;
}

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  function view(row: PrivateLocationRow, keys: KeyRow[], fresh?: { id: string; rawKey: string }) {
    const agents = deps.agents.connected(row.id);
    const byVersion = new Map<string, typeof agents>();
    for (const a of agents) byVersion.set(a.version, [...(byVersion.get(a.version) ?? []), a]);
    const versions = [...byVersion.keys()].sort(compareVersions);
    const newestSeen = Math.max(row.last_seen_at?.getTime() ?? 0, ...agents.map((a) => a.lastSeenAt));
    return {
      id: row.id,
      name: row.name,
      slugName: row.slug_name,
      icon: row.icon,
      proxyUrl: showProxyUrl(row.proxy_url),
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
      keys: keys.map((k) => ({
        id: k.id,
        ...(fresh && fresh.id === k.id ? { rawKey: fresh.rawKey } : {}),
        maskedKey: k.masked_key,
        created_at: iso(k.created_at),
        updated_at: iso(k.updated_at),
      })),
      lastSeen: newestSeen > 0 ? new Date(newestSeen).toISOString() : null,
      agentCount: agents.length,
      minAgentVersion: versions[0] ?? null,
      runningAgents: versions.map((v) => ({
        version: v,
        count: byVersion.get(v)!.length,
        agents: byVersion.get(v)!.map((a) => ({ id: a.id, lastSeenAt: new Date(a.lastSeenAt).toISOString() })),
      })),
    };
  }

  async function load(accountId: string, id: string) {
    const row = await deps.store.privateLocations.get(accountId, id);
    if (!row) throw notFound('Private location', id);
    return row;
  }

  app.post<{ Body: { name: string; slugName: string; icon?: string; proxyUrl?: string | null } }>(
    '/v1/private-locations',
    { schema: { body: createBody } },
    async (req, reply) => {
      const out = await deps.store.tx(async (tx) => {
        const row = await tx.privateLocations.insert(req.accountId, req.body);
        if (!row) return null;
        return { row, key: await tx.privateLocations.insertKey(row.id) };
      });
      if (!out)
        throw new ApiError(409, `A private location with slugName ${JSON.stringify(req.body.slugName)} already exists`, {
          field: 'slugName',
          rule: 'unique',
        });
      return reply.code(201).send(view(out.row, [out.key], out.key));
    },
  );

  app.get('/v1/private-locations', async (req) => {
    const rows = await deps.store.privateLocations.list(req.accountId);
    const keys = await deps.store.privateLocations.keysOf(rows.map((r) => r.id));
    return rows.map((r) =>
      view(
        r,
        keys.filter((k) => k.private_location_id === r.id),
      ),
    );
  });

  app.get<{ Params: { id: string } }>('/v1/private-locations/:id', { schema: { params } }, async (req) => {
    const row = await load(req.accountId, req.params.id);
    return view(row, await deps.store.privateLocations.keysOf([row.id]));
  });

  app.put<{ Params: { id: string }; Body: { name: string; icon?: string; proxyUrl?: string | null } }>(
    '/v1/private-locations/:id',
    { schema: { params, body: updateBody } },
    async (req) => {
      const current = await load(req.accountId, req.params.id);
      const body = { ...req.body, proxyUrl: keepProxyUrl(req.body.proxyUrl, current.proxy_url) };
      const row = await deps.store.privateLocations.update(req.accountId, req.params.id, body);
      if (!row) throw notFound('Private location', req.params.id);
      deps.agents.forgetGrants((g) => g.privateLocationId === row.id);
      return view(row, await deps.store.privateLocations.keysOf([row.id]));
    },
  );

  app.delete<{ Params: { id: string } }>('/v1/private-locations/:id', { schema: { params } }, async (req, reply) => {
    const row = await load(req.accountId, req.params.id);
    const users = await deps.store.checks.usingPrivateLocation(req.accountId, row.slug_name);
    if (users.length) {
      throw new ApiError(409, `Private location ${row.slug_name} is used by ${users.length} check(s); remove it from them first`, {
        checkIds: users,
      });
    }
    const keys = await deps.store.privateLocations.keysOf([row.id]);
    await deps.store.privateLocations.delete(req.accountId, row.id);
    deps.agents.forgetGrants((g) => g.privateLocationId === row.id);
    for (const k of keys) deps.jobs.revokeKey(k.id);
    return reply.code(204).send();
  });

  app.post<{ Params: { id: string } }>('/v1/private-locations/:id/keys', { schema: { params } }, async (req, reply) => {
    const row = await load(req.accountId, req.params.id);
    const key = await deps.store.privateLocations.insertKey(row.id);
    return reply.code(201).send({
      id: key.id,
      rawKey: key.rawKey,
      maskedKey: key.masked_key,
      created_at: iso(key.created_at),
      updated_at: iso(key.updated_at),
    });
  });

  app.delete<{ Params: { id: string; keyId: string } }>(
    '/v1/private-locations/:id/keys/:keyId',
    { schema: { params: keyParams } },
    async (req, reply) => {
      const row = await load(req.accountId, req.params.id);
      if (!(await deps.store.privateLocations.deleteKey(row.id, req.params.keyId))) throw notFound('Key', req.params.keyId);
      deps.agents.forgetGrants((g) => g.keyId === req.params.keyId);
      deps.jobs.revokeKey(req.params.keyId);
      return reply.code(204).send();
    },
  );
};

export default plugin;
