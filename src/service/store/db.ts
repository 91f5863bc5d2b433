// One SQL dialect (PostgreSQL) for both backends: PGlite embedded by default, a real
// PostgreSQL server when DATABASE_URL is set. Everything above this file is backend-agnostic.

import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { MIGRATIONS } from './migrations.js';

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface Db extends Queryable {
  readonly kind: 'embedded' | 'postgres';
  /** Runs fn in one transaction: all of it is written or none of it. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function openDb(opts: { databaseUrl?: string; dataDir: string }): Promise<Db> {
  const db = opts.databaseUrl ? await openPostgres(opts.databaseUrl) : await openEmbedded(opts.dataDir);
  await migrate(db);
  return db;
}

async function openEmbedded(dataDir: string): Promise<Db> {
  fs.mkdirSync(dataDir, { recursive: true });
  const worker = new Worker(new URL('./pglite-worker.js', import.meta.url), { workerData: { dataDir } });
  const pending = new Map<number, { resolve: (rows: unknown[]) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', () => {
      worker.off('error', reject);
      resolve();
    });
  });
  worker.on('message', (m: { id: number; rows?: unknown[]; error?: { message: string; code?: string } }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error) p.reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
    else p.resolve(m.rows!);
  });
  worker.on('error', (err) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  });
  const send = (msg: { sql?: string; params?: unknown[]; close?: boolean }) =>
    new Promise<unknown[]>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...msg });
    });
  const direct: Queryable = { query: <T>(sql: string, params?: unknown[]) => send({ sql, params }) as Promise<T[]> };

  // One connection: a transaction holds it, and other queries wait their turn behind it.
  let turn: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = turn.then(fn, fn);
    turn = run.catch(() => {});
    return run;
  };
  return {
    kind: 'embedded',
    query: (sql, params) => exclusive(() => direct.query(sql, params)),
    tx: (fn) =>
      exclusive(async () => {
        await direct.query('BEGIN');
        try {
          const out = await fn(direct);
          await direct.query('COMMIT');
          return out;
        } catch (err) {
          await direct.query('ROLLBACK').catch(() => {});
          throw err;
        }
      }),
    async close() {
      await exclusive(() => send({ close: true }));
      await worker.terminate();
    },
  };
}

async function openPostgres(url: string): Promise<Db> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  // A broken idle connection must not take the process down; the next query reconnects.
  pool.on('error', () => {});
  const self: Queryable = {
    async query<T>(sql: string, params?: unknown[]) {
      return (await pool.query(sql, params as unknown[])).rows as T[];
    },
  };
  return {
    kind: 'postgres',
    query: self.query,
    async tx(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn({ query: async (s, p) => (await client.query(s, p as unknown[])).rows });
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

async function migrate(db: Db): Promise<void> {
  await db.query(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  await db.tx(async (q) => {
    // Two services starting on one database must not both apply a migration.
    await q.query('SELECT pg_advisory_xact_lock(7301)');
    const done = new Set((await q.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version));
    for (const [i, sql] of MIGRATIONS.entries()) {
      const version = i + 1;
      if (done.has(version)) continue;
      for (const statement of sql
        .split(/;\s*\n/)
        .map((s) => s.trim())
        .filter(Boolean))
        await q.query(statement);
      await q.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
    }
  });
}
