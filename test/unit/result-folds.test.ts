// The embedded store folds results into check statuses and days in bulk, a while after storing
// them. Readers must still see every stored result, a crash must lose or double none of them,
// and a fold that fails to commit must be written again.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/service/store/index.js';
import { Fold, type Outcome } from '../../src/service/store/result-folds.js';
import { delivered } from '../helpers/delivered.js';
import type { CheckConfig } from '../../src/service/store/checks.js';

const open: Store[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

async function storeIn(dir: string): Promise<Store> {
  const store = await openStore({ dataDir: dir });
  open.push(store);
  return store;
}

/**
 * The data directory as a power cut would leave it now: the database and its log, copied
 * while the store is open, so whatever it holds only in memory is not in the copy.
 */
function crashImage(dir: string): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-crash-'));
  fs.cpSync(dir, copy, { recursive: true });
  return copy;
}

const T0 = Date.parse('2026-11-24T23:59:58Z');
let seq = 0;
function run(accountId: string, checkId: string, at: number, o: { failed?: boolean; attempt?: boolean; ms?: number } = {}) {
  return delivered(accountId, checkId, `${at}:${checkId}:eu-west-1:${seq++}`, at, { ms: 5, ...o });
}

async function withChecks(store: Store, ...ids: string[]): Promise<string> {
  const { accountId } = await store.accounts.bootstrap({ apiKey: 'k-folds-0123456789' });
  for (const id of ids)
    await store.checks.insert({
      id,
      account_id: accountId,
      check_type: 'TCP',
      name: id,
      activated: true,
      config: { name: id, activated: true } as CheckConfig,
    });
  return accountId;
}

const days = async (store: Store, id: string) =>
  (await store.results.days([id], '2026-11-01')).map((d) => [d.day, Number(d.runs), Number(d.failures), Number(d.response_time_sum)]);

describe('result folds', () => {
  it('folding in two parts and merging equals folding at once', () => {
    const outcomes: Outcome[] = [0, 1, 2, 3, 4, 5].map((i) => ({
      checkId: i % 2 ? 'a' : 'b',
      accountId: 'x',
      name: `n${i}`,
      hasFailures: i === 3,
      hasErrors: false,
      isDegraded: i === 4,
      location: `l${i}`,
      runId: String(i),
      stoppedAt: T0 + i * 1000,
      responseTime: 10 + ((i * 7) % 5),
    }));
    const whole = new Fold();
    for (const o of outcomes) whole.add(o);
    const first = new Fold();
    const second = new Fold();
    for (const o of outcomes.slice(0, 3)) first.add(o);
    for (const o of outcomes.slice(3)) second.add(o);
    second.absorb(first);
    expect(second.statusRows().sort()).toEqual(whole.statusRows().sort());
    expect([...second.days.entries()].sort()).toEqual([...whole.days.entries()].sort());
  });

  it('shows every stored result to readers at once, though the fold waits', async () => {
    const store = await storeIn(fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-folds-')));
    const account = await withChecks(store, 'c1');
    await store.results.store([run(account, 'c1', T0, { ms: 7 }), run(account, 'c1', T0 + 4000, { failed: true, ms: 9 })], []);
    expect(await store.statuses.get(account, 'c1')).toMatchObject({ has_failures: true, longest_run: 9, shortest_run: 7 });
    expect(await days(store, 'c1')).toEqual([
      ['2026-11-24', 1, 0, 7],
      ['2026-11-25', 1, 1, 9],
    ]);
    // Stored after a read, and read again: folded on top of what the first read wrote.
    await store.results.store([run(account, 'c1', T0 + 8000, { ms: 3 })], []);
    expect(await store.statuses.list(account)).toEqual([
      expect.objectContaining({ check_id: 'c1', has_failures: false, longest_run: 9, shortest_run: 3 }),
    ]);
    expect(await days(store, 'c1')).toEqual([
      ['2026-11-24', 1, 0, 7],
      ['2026-11-25', 2, 1, 12],
    ]);
  });

  it('after a crash, folds what was stored and not yet folded, exactly once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-folds-'));
    const store = await storeIn(dir);
    const account = await withChecks(store, 'c1', 'c2');
    // Folded before the crash (a read settles it)...
    await store.results.store([run(account, 'c1', T0 + 2000), run(account, 'c2', T0 + 2000, { failed: true })], []);
    expect(await days(store, 'c1')).toEqual([['2026-11-25', 1, 0, 5]]);
    // ...and stored, acknowledged, not yet folded; a retried attempt counts for neither.
    await store.results.store(
      [run(account, 'c1', T0 + 3000, { failed: true }), run(account, 'c2', T0 + 3000), run(account, 'c2', T0 + 2500, { attempt: true })],
      [],
    );
    const image = crashImage(dir);
    const after = await storeIn(image);
    expect(await after.statuses.get(account, 'c1')).toMatchObject({ has_failures: true });
    expect(await after.statuses.get(account, 'c2')).toMatchObject({ has_failures: false });
    expect(await days(after, 'c1')).toEqual([['2026-11-25', 2, 1, 10]]);
    expect(await days(after, 'c2')).toEqual([['2026-11-25', 2, 1, 10]]);
    // And the next start has nothing left to fold.
    const again = await storeIn(crashImage(image));
    expect(await days(again, 'c2')).toEqual([['2026-11-25', 2, 1, 10]]);
  });

  it('a check deleted with the newest results does not hide the next results from a restart', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-folds-'));
    const store = await storeIn(dir);
    const account = await withChecks(store, 'old', 'keep');
    await store.results.store([run(account, 'keep', T0 + 1000)], []);
    await store.results.store([run(account, 'old', T0 + 2000), run(account, 'old', T0 + 3000)], []);
    expect(await store.checks.delete('old', account)).toBe(true);
    // These take the rowids the deleted results had.
    await store.results.store([run(account, 'keep', T0 + 4000, { failed: true })], []);
    const after = await storeIn(crashImage(dir));
    expect(await days(after, 'keep')).toEqual([
      ['2026-11-24', 1, 0, 5],
      ['2026-11-25', 1, 1, 5],
    ]);
    expect(await after.statuses.get(account, 'keep')).toMatchObject({ has_failures: true });
    expect(await after.statuses.get(account, 'old')).toBeNull();
    expect(await days(after, 'old')).toEqual([]);
  });

  it('writes a fold again when the transaction that wrote it rolls back', async () => {
    const store = await storeIn(fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-folds-')));
    const account = await withChecks(store, 'c1');
    await store.results.store([run(account, 'c1', T0 + 2000, { failed: true }), run(account, 'c1', T0 + 3000)], []);
    await expect(
      store.tx(async (tx) => {
        // The read settles the fold inside this transaction, which then fails.
        expect(await tx.statuses.get(account, 'c1')).toMatchObject({ has_failures: false });
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await store.results.store([run(account, 'c1', T0 + 4000, { ms: 1 })], []);
    expect(await days(store, 'c1')).toEqual([['2026-11-25', 3, 1, 11]]);
    expect(await store.statuses.get(account, 'c1')).toMatchObject({ has_failures: false, shortest_run: 1, longest_run: 5 });
  });
});
