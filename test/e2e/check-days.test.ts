// Each check's FINAL results by day, kept as results are stored (what 90 days of uptime are
// read from), on the store itself: embedded, or PostgreSQL in the postgres project.

import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/service/store/index.js';
import { delivered } from '../helpers/delivered.js';
import type { CheckConfig } from '../../src/service/store/checks.js';
import { storageEnv } from '../helpers/procs.js';

let store: Store;
afterAll(async () => {
  await store?.close();
});

const day = (iso: string) => Date.parse(iso);
const run = (checkId: string, jobId: string, stoppedAt: number, o: Parameters<typeof delivered>[4] = {}) =>
  delivered('acct', checkId, jobId, stoppedAt, o);

describe('check days', () => {
  it('count FINAL results by UTC day as they are stored, once each, and go with their check', async () => {
    const env = await storageEnv();
    store = await openStore({ databaseUrl: env.DATABASE_URL, dataDir: env.OUTPOST_DATA_DIR });
    const { accountId } = await store.accounts.bootstrap({ apiKey: 'k-days-0123456789' });
    await store.checks.insert({
      id: 'c1',
      account_id: accountId,
      check_type: 'TCP',
      name: 'c1',
      activated: true,
      config: { name: 'c1', activated: true } as CheckConfig,
    });
    const batch = [
      run('c1', 'j1', day('2026-11-20T23:59:59Z')),
      run('c1', 'j2', day('2026-11-21T00:00:01Z'), { failed: true }),
      run('c1', 'j3', day('2026-11-21T00:05:00Z'), { degraded: true }),
      run('c1', 'j4', day('2026-11-21T00:06:00Z'), { failed: true, attempt: true }),
      run('c1', 'j5', day('2026-11-21T00:07:00Z')),
    ].map((d) => ({ ...d, accountId }));
    await store.results.store(batch, []);
    // Delivered again (an agent that did not hear the acknowledgement): nothing counts twice.
    await store.results.store(batch.slice(0, 2), []);
    await store.results.store([{ ...run('c1', 'j6', day('2026-11-21T10:00:00Z')), accountId }], []);
    const rows = (await store.results.days(['c1'], '2026-11-01')).map((r) => [
      r.day,
      Number(r.runs),
      Number(r.failures),
      Number(r.degraded),
      Number(r.response_time_sum),
    ]);
    expect(rows).toEqual([
      ['2026-11-20', 1, 0, 0, 10],
      ['2026-11-21', 4, 1, 1, 40],
    ]);
    expect(await store.results.days(['c1'], '2026-11-21')).toHaveLength(1);
    await store.checks.delete('c1', accountId);
    expect(await store.results.days(['c1'], '2026-11-01')).toEqual([]);
  });
});
