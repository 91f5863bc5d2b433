// The embedded store (SQLite): what the repositories hand back, all-or-nothing writes, and an
// Outpost 0.1 data directory refused rather than buried under a new empty database.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/service/store/index.js';
import { EMBEDDED_FILE, openDatabase, positional } from '../../src/service/store/db.js';
import type { CheckConfig } from '../../src/service/store/checks.js';

const open: Store[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

async function fresh(dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-store-'))) {
  const store = await openStore({ dataDir: dir });
  open.push(store);
  return { store, dir };
}

const config = (name: string): CheckConfig =>
  ({ name, activated: true, privateLocations: ['rack-7'], request: { hostname: 'example.test', port: 443 }, frequency: 5 }) as CheckConfig;

describe('embedded store', () => {
  it('refuses an Outpost 0.1 data directory and creates nothing beside it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-old-'));
    fs.mkdirSync(path.join(dir, 'pg'));
    fs.writeFileSync(path.join(dir, 'pg', 'PG_VERSION'), '17\n');
    await expect(openStore({ dataDir: dir })).rejects.toMatchObject({
      code: 'OUTPOST_STORE_REFUSED',
      message: expect.stringContaining('OUTPOST_DATA_DIR'),
    });
    expect(fs.existsSync(path.join(dir, EMBEDDED_FILE))).toBe(false);
  });

  it('hands back booleans, dates and JSON as PostgreSQL would', async () => {
    const { store } = await fresh();
    const { accountId } = await store.accounts.bootstrap({ apiKey: 'k-0123456789' });
    const before = Date.now();
    const row = await store.checks.insert({
      id: 'c1',
      account_id: accountId,
      check_type: 'TCP',
      name: 'n',
      activated: true,
      config: config('n'),
    });
    expect(row.activated).toBe(true);
    expect(row.config.request).toEqual({ hostname: 'example.test', port: 443 });
    expect(row.created_at).toBeInstanceOf(Date);
    expect(row.created_at.getTime()).toBeGreaterThanOrEqual(before - 1);
    expect(row.updated_at).toBeNull();
    const updated = await store.checks.update('c1', accountId, { ...config('m'), activated: false });
    expect(updated).toMatchObject({ name: 'm', activated: false });
    expect(updated!.updated_at).toBeInstanceOf(Date);
    expect(await store.checks.usingPrivateLocation(accountId, 'rack-7')).toEqual(['c1']);
    expect(await store.checks.usingPrivateLocation(accountId, 'rack-8')).toEqual([]);
  });

  it('binds numbered parameters by position, repeated or out of order, and never inside quotes', () => {
    expect(positional("SELECT $2, '$1 and ''$3''', $1, $2, $10")).toEqual({
      text: "SELECT ?, '$1 and ''$3''', ?, ?, ?",
      order: [1, 0, 1, 9],
    });
    expect(positional('SELECT 1')).toEqual({ text: 'SELECT 1', order: [] });
  });

  it('takes the same parameter twice, and refuses a statement short of one', async () => {
    const db = await openDatabase({ dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-store-')) });
    try {
      expect(await db.query('SELECT $2 AS b, $1 AS a, $2 AS again', [1, 'two'])).toEqual([{ b: 'two', a: 1, again: 'two' }]);
      await expect(db.query('SELECT $1 AS a, $2 AS b', [1])).rejects.toThrow(/Missing parameter \$2/);
    } finally {
      await db.close();
    }
  });

  it('lists in creation order even when rows share a millisecond', async () => {
    const { store } = await fresh();
    const { accountId } = await store.accounts.bootstrap({ apiKey: 'k-0123456789' });
    const ids = ['z', 'a', 'm', 'b', 'y', 'c'];
    for (const id of ids)
      await store.checks.insert({ id, account_id: accountId, check_type: 'TCP', name: id, activated: true, config: config(id) });
    const { rows, total } = await store.checks.list(accountId, 10, 0);
    expect(total).toBe(ids.length);
    expect(rows.map((r) => r.id)).toEqual(ids);
  });

  it('writes all of a transaction or none of it, and others wait for it', async () => {
    const { store } = await fresh();
    const { accountId } = await store.accounts.bootstrap({ apiKey: 'k-0123456789' });
    await expect(
      store.tx(async (tx) => {
        await tx.variables.insert(accountId, { key: 'A', value: '1', locked: false, secret: false });
        throw new Error('half-way');
      }),
    ).rejects.toThrow('half-way');
    expect(await store.variables.list(accountId)).toEqual([]);

    // A query issued while a transaction is open must not see its middle: here the transaction
    // is rolled back after the query was issued, so the query must find nothing.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const inside = store.tx(async (tx) => {
      await tx.variables.insert(accountId, { key: 'B', value: '2', locked: false, secret: false });
      await gate;
      throw new Error('changed my mind');
    });
    const outside = store.variables.list(accountId);
    release();
    await expect(inside).rejects.toThrow('changed my mind');
    expect(await outside).toEqual([]);
  });

  it('commits concurrent writes together, failing only the one that breaks a rule', async () => {
    const { store } = await fresh();
    const { accountId } = await store.accounts.bootstrap({ apiKey: 'k-0123456789' });
    const insert = (id: string) =>
      store.checks.insert({ id, account_id: accountId, check_type: 'TCP', name: id, activated: true, config: config(id) });
    const outcomes = await Promise.allSettled([insert('a'), insert('b'), insert('a'), insert('c')]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((await store.checks.list(accountId, 10, 0)).rows.map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });

  it('keeps what it stored across a reopen', async () => {
    const { store, dir } = await fresh();
    const { accountId } = await store.accounts.bootstrap({ apiKey: 'k-0123456789' });
    await store.variables.insert(accountId, { key: 'K', value: 'v', locked: true, secret: false });
    await store.close();
    open.splice(open.indexOf(store), 1);
    const again = (await fresh(dir)).store;
    expect(await again.variables.get(accountId, 'K')).toMatchObject({ value: 'v', locked: true, secret: false });
    expect((await again.accounts.bootstrap({})).accountId).toBe(accountId);
  });
});
