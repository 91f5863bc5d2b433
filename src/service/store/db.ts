// The two backends behind the repositories: SQLite in the data directory by default (one file,
// in-process, a few MB), PostgreSQL when DATABASE_URL is set (several services, one database).
// Repositories write SQL both accept where they can and pick per dialect where they cannot;
// this file evens out what each driver hands back, so a row looks the same from either.

import fs from 'node:fs';
import path from 'node:path';
import { MIGRATIONS, sqliteDdl } from './migrations.js';
import { CHECKPOINT_PAGES, WalCheckpoints } from './wal-checkpoints.js';

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
  // WAL lets readers run beside a writer. SQLite's own sync of the log on commit
  // (synchronous=FULL) would block the event loop for the length of an fsync; the log is synced
  // from the thread pool instead (`durable` below), and nobody hears of a write before that.
  conn.pragma('journal_mode = WAL');
  conn.pragma('synchronous = NORMAL');
  // Checkpoints run on a thread of their own (wal-checkpoints.ts), not inside a commit here.
  conn.pragma('wal_autocheckpoint = 0');
  conn.pragma('foreign_keys = ON');
  conn.pragma('busy_timeout = 5000');
  const durable = walSyncer(path.join(dataDir, `${EMBEDDED_FILE}-wal`));
  const checkpoints = new WalCheckpoints(path.join(dataDir, EMBEDDED_FILE), (err) => {
    conn.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
    process.emitWarning(`checkpoints of the embedded store run inside commits again: ${err.message}`);
  });
  const control = (sql: string) => {
    const stmt = conn.prepare(sql);
    return () => void stmt.run();
  };
  const begin = control('BEGIN IMMEDIATE');
  const commit = control('COMMIT');
  const rollback = control('ROLLBACK');
  const savepoint = control('SAVEPOINT w');
  const release = control('RELEASE w');
  const rollbackTo = control('ROLLBACK TO w');

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
    try {
      begin();
      for (const w of batch) {
        savepoint();
        try {
          done.push([w, run(w.sql, w.params)]);
          release();
        } catch (err) {
          rollbackTo();
          release();
          w.reject(err);
        }
      }
      commit();
      checkpoints.afterCommit();
    } catch (err) {
      if (conn.inTransaction) rollback();
      // Every write of the batch, whether it ran or not (rejecting a settled one does nothing).
      for (const w of batch) w.reject(err);
      return;
    }
    durable().then(
      () => {
        for (const [w, rows] of done) w.resolve(rows);
      },
      (err: unknown) => {
        for (const [w] of done) w.reject(err);
      },
    );
  };
  // While the log syncs, writes wait and are committed just before the next sync begins: they
  // could not be acknowledged any sooner, and one commit of many writes costs less than several.
  // While a checkpoint copies the log, writes wait too (the event loop does not): one committed
  // meanwhile would keep the checkpoint from reaching the log's end, and SQLite starts the log
  // over only from there, so under steady writes it would grow without end.
  /** What a write must wait for: an open transaction or a running checkpoint; null when nothing. */
  const blocker = (): Promise<void> | null => open ?? (checkpoints.busy ? checkpoints.settled() : null);
  const flushWhenFree = () => {
    const b = blocker();
    if (b) void b.then(flushWhenFree);
    else flushWrites();
  };
  const scheduleFlush = () =>
    setImmediate(() => {
      if (!open && durable.syncing()) durable.beforeNextSync(flushWhenFree);
      else flushWhenFree();
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
    // Checked again after every wait, in the same turn as what follows it.
    for (let b = blocker(); b; b = blocker()) await b;
    // Writes queued before this transaction commit before it (their commit may begin a checkpoint).
    flushWrites();
    for (let b = blocker(); b; b = blocker()) await b;
    let unblock!: () => void;
    open = new Promise((r) => (unblock = r));
    let out: T;
    try {
      begin();
      try {
        out = await fn(inTx);
        commit();
        checkpoints.afterCommit();
        end(true);
      } catch (err) {
        if (conn.inTransaction) rollback();
        end(false);
        throw err;
      }
    } finally {
      open = null;
      unblock();
    }
    // Other writers go on while the log syncs; this caller hears back once it has.
    await durable();
    return out;
  };
  return {
    kind: 'embedded',
    dialect: 'sqlite',
    query,
    tx,
    afterTx: (done) => done(true),
    async close() {
      for (let b = blocker(); b; b = blocker()) await b;
      flushWrites();
      await durable.close();
      await checkpoints.close();
      conn.close();
    },
  };
}

/** A sync of SQLite's write-ahead log, run from libuv's thread pool. */
export interface WalSyncer {
  /** Resolves once a sync that began after the call has finished: what was committed is on disk. */
  (): Promise<void>;
  /** Whether a sync is running now. */
  syncing(): boolean;
  /** Runs fn just before the next sync begins, so that what it commits rides on that sync. */
  beforeNextSync(fn: () => void): void;
  close(): Promise<void>;
}

/**
 * Calls that arrive while a sync runs share the next one. After a failed sync the page cache
 * may have dropped the data, and a later sync could report success over the loss, so every sync
 * after one fails fails too, until a restart reads the log back from disk.
 */
export function walSyncer(walPath: string, fdatasync: typeof fs.fdatasync = fs.fdatasync): WalSyncer {
  type Waiter = { resolve: () => void; reject: (e: Error) => void };
  let fd: number | null = null;
  let broken: Error | null = null;
  let running = false;
  let waiters: Waiter[] = [];
  let hooks: (() => void)[] = [];
  const idle: (() => void)[] = [];

  const openLog = (): number => {
    if (fd !== null) return fd;
    // The log exists once anything has been committed; its directory entry is synced once, as
    // SQLite does for a log it creates.
    fd = fs.openSync(walPath, 'r');
    const dir = fs.openSync(path.dirname(walPath), 'r');
    try {
      fs.fsyncSync(dir);
    } finally {
      fs.closeSync(dir);
    }
    return fd;
  };
  const start = () => {
    running = true;
    const before = hooks;
    hooks = [];
    for (const fn of before) fn();
    const batch = waiters;
    waiters = [];
    const finish = (err: Error | null) => {
      for (const w of batch)
        if (err) w.reject(err);
        else w.resolve();
      running = false;
      if (waiters.length || hooks.length) start();
      else for (const done of idle.splice(0)) done();
    };
    if (broken) return finish(broken);
    try {
      fdatasync(openLog(), (err) => {
        if (err) broken = new StoreError(`Could not sync the database log (${err.code ?? err.message}); restart the service`);
        finish(broken);
      });
    } catch (err) {
      broken = new StoreError(`Could not sync the database log (${(err as NodeJS.ErrnoException).code}); restart the service`);
      finish(broken);
    }
  };
  const durable = () =>
    new Promise<void>((resolve, reject) => {
      waiters.push({ resolve, reject });
      if (!running) start();
    });
  return Object.assign(durable, {
    syncing: () => running,
    beforeNextSync(fn: () => void) {
      hooks.push(fn);
    },
    async close() {
      if (running) await new Promise<void>((r) => idle.push(r));
      if (fd !== null) fs.closeSync(fd);
      fd = null;
    },
  });
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
