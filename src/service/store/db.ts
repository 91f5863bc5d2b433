// The two backends behind the repositories: SQLite in the data directory by default (one file,
// in-process, a few MB), PostgreSQL when DATABASE_URL is set (several services, one database).
// Repositories write SQL both accept where they can and pick per dialect where they cannot;
// this file evens out what each driver hands back, so a row looks the same from either.

import fs from 'node:fs';
import path from 'node:path';
import { MIGRATIONS, sqliteDdl } from './migrations.js';

export type Dialect = 'sqlite' | 'postgres';

/** A connection, or one transaction on it. Parameters are `$1`, `$2`, … in both dialects. */
export interface Sql {
  readonly dialect: Dialect;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs fn in one transaction: all of it is written or none of it. Inside one, joins it. */
  tx<T>(fn: (q: Sql) => Promise<T>): Promise<T>;
  /**
   * Runs done once the transaction ends, told whether it committed, before any other write can
   * begin; outside a transaction, at once (each statement commits on its own).
   */
  afterTx(done: (committed: boolean) => void): void;
}

export interface Database extends Sql {
  readonly kind: 'embedded' | 'postgres';
  close(): Promise<void>;
}

export class StoreError extends Error {
  readonly code = 'OUTPOST_STORE_REFUSED';
}

/** `= ANY(array)` in both dialects; the drivers pass arrays as arrays (pg) or JSON (SQLite). */
export function inList(db: Sql, param: string): string {
  return db.dialect === 'postgres' ? `= ANY(${param}::text[])` : `IN (SELECT value FROM json_each(${param}))`;
}

/** Rows as column arrays, for PostgreSQL's unnest($1::type[], …) batch statements. */
export function columns(rows: unknown[][], width: number): unknown[][] {
  const out: unknown[][] = Array.from({ length: width }, () => new Array<unknown>(rows.length));
  for (let r = 0; r < rows.length; r++) for (let c = 0; c < width; c++) out[c][r] = rows[r][c];
  return out;
}

/**
 * Creation order. SQLite's clock stops at milliseconds, where many rows share a created_at, so
 * there the row id (insertion order) breaks ties; PostgreSQL's microseconds rarely tie.
 */
export function creationOrder(db: Sql): string {
  return db.dialect === 'postgres' ? 'created_at, id' : 'created_at, rowid';
}

export const EMBEDDED_FILE = 'outpost.db';

export async function openDatabase(opts: { databaseUrl?: string; dataDir: string }): Promise<Database> {
  const db = opts.databaseUrl ? await openPostgres(opts.databaseUrl) : await openSqlite(opts.dataDir);
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

/** Outpost 0.1 kept an embedded PostgreSQL (PGlite) under `<data>/pg`; nothing here can read it. */
function refuseOldDataDir(dataDir: string): void {
  const old = path.join(dataDir, 'pg');
  if (!fs.existsSync(path.join(old, 'PG_VERSION'))) return;
  throw new StoreError(
    `${old} holds a database written by Outpost 0.1 (embedded PostgreSQL), which this version cannot read. ` +
      'Start this version on another data directory (OUTPOST_DATA_DIR) and re-create the checks there, ' +
      '`npx checkly deploy` re-creates checks kept as code; or keep running Outpost 0.1 on this one. ' +
      `Move ${old} away to start here anyway.`,
  );
}

async function openSqlite(dataDir: string): Promise<Database> {
  refuseOldDataDir(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  const { default: BetterSqlite } = await import('better-sqlite3');
  const conn = new BetterSqlite(path.join(dataDir, EMBEDDED_FILE));
  // WAL lets readers run beside a writer; synchronous=FULL syncs the log on every commit, so a
  // result acknowledged to an agent survives a power cut, not only a crash.
  conn.pragma('journal_mode = WAL');
  conn.pragma('synchronous = FULL');
  conn.pragma('foreign_keys = ON');
  conn.pragma('busy_timeout = 5000');

  type Prepared = {
    stmt: import('better-sqlite3').Statement;
    /** Which parameter each `?` of the statement takes, in order. */
    order: number[];
    decode: ((row: Record<string, unknown>) => void) | null;
  };
  const cache = new Map<string, Prepared>();
  const prepare = (sql: string): Prepared => {
    let p = cache.get(sql);
    if (p) return p;
    // Statements with inlined LIMIT/OFFSET vary; a bounded cache keeps memory flat.
    if (cache.size >= 500) cache.clear();
    const { text, order } = positional(sql);
    const stmt = conn.prepare(text);
    p = { stmt, order, decode: stmt.reader ? rowDecoder(stmt.columns()) : null };
    cache.set(sql, p);
    return p;
  };
  const run = <T>(sql: string, params?: unknown[]): T[] => {
    const p = prepare(sql);
    const args = bindings(params, p.order);
    if (!p.decode) {
      p.stmt.run(args);
      return [];
    }
    const rows = p.stmt.all(args) as Record<string, unknown>[];
    for (const r of rows) p.decode(r);
    return rows as T[];
  };

  // Statements run synchronously, so nothing interleaves with one; a transaction spans awaits,
  // though, and while it is open every other caller waits for it to end.
  let open: Promise<void> | null = null;
  let ending: ((committed: boolean) => void)[] = [];
  const inTx: Sql = {
    dialect: 'sqlite',
    query: async (sql, params) => run(sql, params),
    tx: (fn) => fn(inTx),
    afterTx: (done) => void ending.push(done),
  };
  const end = (committed: boolean) => {
    const hooks = ending;
    ending = [];
    for (const done of hooks) done(committed);
  };

  // Group commit: writes that arrive in the same turn of the event loop (concurrent requests)
  // share one transaction and so one fsync. Each runs in a savepoint of its own, so one failing
  // statement fails only its caller; every caller hears back once the commit is on disk.
  type Write = { sql: string; params?: unknown[]; resolve: (rows: unknown[]) => void; reject: (e: unknown) => void };
  let writes: Write[] = [];
  const flushWrites = () => {
    const batch = writes;
    writes = [];
    if (batch.length === 0) return;
    const done: [Write, unknown[]][] = [];
    const failed: [Write, unknown][] = [];
    try {
      conn.exec('BEGIN IMMEDIATE');
      for (const w of batch) {
        conn.exec('SAVEPOINT w');
        try {
          done.push([w, run(w.sql, w.params)]);
          conn.exec('RELEASE w');
        } catch (err) {
          conn.exec('ROLLBACK TO w');
          conn.exec('RELEASE w');
          failed.push([w, err]);
        }
      }
      conn.exec('COMMIT');
    } catch (err) {
      if (conn.inTransaction) conn.exec('ROLLBACK');
      for (const w of batch) w.reject(err);
      return;
    }
    for (const [w, rows] of done) w.resolve(rows);
    for (const [w, err] of failed) w.reject(err);
  };
  const scheduleFlush = () =>
    setImmediate(() => {
      if (open) void open.then(scheduleFlush);
      else flushWrites();
    });

  const query = async <T>(sql: string, params?: unknown[]): Promise<T[]> => {
    while (open) await open;
    if (prepare(sql).stmt.readonly) return run<T>(sql, params);
    return new Promise<T[]>((resolve, reject) => {
      writes.push({ sql, params, resolve: resolve as (rows: unknown[]) => void, reject });
      if (writes.length === 1) scheduleFlush();
    });
  };
  const tx = async <T>(fn: (q: Sql) => Promise<T>): Promise<T> => {
    while (open) await open;
    // Writes queued before this transaction commit before it.
    flushWrites();
    let release!: () => void;
    open = new Promise((r) => (release = r));
    try {
      conn.exec('BEGIN IMMEDIATE');
      try {
        const out = await fn(inTx);
        conn.exec('COMMIT');
        end(true);
        return out;
      } catch (err) {
        if (conn.inTransaction) conn.exec('ROLLBACK');
        end(false);
        throw err;
      }
    } finally {
      open = null;
      release();
    }
  };
  return {
    kind: 'embedded',
    dialect: 'sqlite',
    query,
    tx,
    afterTx: (done) => done(true),
    async close() {
      while (open) await open;
      flushWrites();
      conn.close();
    },
  };
}

/**
 * The statement with each `$n` (outside quotes) made a plain `?`, and the parameter each takes.
 * better-sqlite3 binds `$n` by name, looking each up on an object (the bigger part of a
 * statement's cost in memory), and plain `?` from an array.
 */
export function positional(sql: string): { text: string; order: number[] } {
  const order: number[] = [];
  let text = '';
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '$' && sql[i + 1] >= '0' && sql[i + 1] <= '9') {
      let j = i + 1;
      while (sql[j] >= '0' && sql[j] <= '9') j++;
      order.push(Number(sql.slice(i + 1, j)) - 1);
      text += '?';
      i = j - 1;
      continue;
    }
    text += c;
  }
  return { text, order };
}

function bindings(params: unknown[] | undefined, order: number[]): unknown[] {
  const out = new Array<unknown>(order.length);
  for (let i = 0; i < order.length; i++) {
    if (!params || order[i] >= params.length) throw new RangeError(`Missing parameter $${order[i] + 1}`);
    out[i] = toSqlite(params[order[i]]);
  }
  return out;
}

function toSqlite(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof Date) return v.getTime();
  if (Array.isArray(v)) return JSON.stringify(v);
  return v;
}

/**
 * SQLite keeps booleans as 0/1, times as epoch milliseconds and JSON as text; the column's
 * declared type (as the migrations wrote it) says which, as PostgreSQL's types do for pg.
 */
function rowDecoder(columns: { name: string; type: string | null }[]): ((row: Record<string, unknown>) => void) | null {
  const steps: [string, (v: unknown) => unknown][] = [];
  for (const c of columns) {
    const type = c.type?.toLowerCase();
    if (type === 'boolean') steps.push([c.name, (v) => v !== 0]);
    else if (type === 'timestamptz') steps.push([c.name, (v) => new Date(v as number)]);
    else if (type === 'json_text') steps.push([c.name, (v) => JSON.parse(v as string)]);
  }
  if (steps.length === 0) return () => {};
  return (row) => {
    for (const [name, f] of steps) if (row[name] !== null && row[name] !== undefined) row[name] = f(row[name]);
  };
}

async function openPostgres(url: string): Promise<Database> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  // A broken idle connection must not take the process down; the next query reconnects.
  pool.on('error', () => {});
  return {
    kind: 'postgres',
    dialect: 'postgres',
    async query<T>(sql: string, params?: unknown[]) {
      return (await pool.query(sql, params as unknown[])).rows as T[];
    },
    afterTx: (done) => done(true),
    async tx(fn) {
      const client = await pool.connect();
      const ending: ((committed: boolean) => void)[] = [];
      try {
        await client.query('BEGIN');
        const inTx: Sql = {
          dialect: 'postgres',
          query: async (s, p) => (await client.query(s, p as unknown[])).rows,
          tx: (f) => f(inTx),
          afterTx: (done) => void ending.push(done),
        };
        const out = await fn(inTx);
        await client.query('COMMIT');
        for (const done of ending) done(true);
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        for (const done of ending) done(false);
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

async function migrate(db: Database): Promise<void> {
  const ddl = (sql: string) => (db.dialect === 'sqlite' ? sqliteDdl(sql) : sql);
  await db.query(ddl('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL)'));
  await db.tx(async (q) => {
    // Two services starting on one database must not both apply a migration (SQLite's
    // BEGIN IMMEDIATE already excludes a second writer).
    if (db.dialect === 'postgres') await q.query('SELECT pg_advisory_xact_lock(7301)');
    const done = new Set((await q.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version));
    for (const [i, sql] of MIGRATIONS.entries()) {
      const version = i + 1;
      if (done.has(version)) continue;
      for (const statement of ddl(sql)
        .split(/;\s*\n/)
        .map((s) => s.trim())
        .filter(Boolean))
        await q.query(statement);
      await q.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [version, new Date()]);
    }
  });
}
