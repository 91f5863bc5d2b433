// The account behind the API key: /v1/accounts/{id} (op 12) and the /next paths the CLI reads.

import type { FastifyPluginAsync } from 'fastify';
import type { Account } from '../store/accounts.js';
import { ApiError, notFound } from '../errors.js';
import type { Deps } from '../deps.js';

function view(a: Account) {
  return {
    id: a.id,
    name: a.name,
    runtimeId: a.runtime_id,
    plan: 'SELF_HOSTED',
    planDisplayName: 'Self-hosted',
    addons: {},
    settings: {},
    alertSettings: {
      escalationType: 'RUN_BASED',
      runBasedEscalation: { failedRunThreshold: 1 },
      reminders: { amount: 0, interval: 5 },
      parallelRunFailureThreshold: { enabled: false, percentage: 10 },
    },
  };
}

const params = { type: 'object', required: ['accountId'], properties: { accountId: { type: 'string' } } };

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  async function own(accountId: string, requested: string) {
    // Another account's id is answered like an unknown one: no probing for which ids exist.
    if (requested !== accountId) throw notFound('Account', requested);
    const a = await deps.store.accounts.get(accountId);
    if (!a) throw notFound('Account', requested);
    return a;
  }

  app.get<{ Params: { accountId: string } }>('/v1/accounts/:accountId', { schema: { params } }, async (req) =>
    view(await own(req.accountId, req.params.accountId)),
  );
  app.get('/v1/accounts/me', async (req) => view(await own(req.accountId, req.accountId)));
  app.get('/next/accounts', async (req) => [view(await own(req.accountId, req.accountId))]);
  app.get<{ Params: { accountId: string } }>('/next/accounts/:accountId', { schema: { params } }, async (req) =>
    view(await own(req.accountId, req.params.accountId)),
  );
  app.get('/next/users/me', async (req) => {
    const a = await deps.store.accounts.get(req.accountId);
    if (!a) throw new ApiError(401, 'Invalid API key');
    return { id: `api-key-${a.id}`, name: 'API key', email: null, accounts: [{ id: a.id, name: a.name }] };
  });
};

export default plugin;
