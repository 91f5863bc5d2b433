// The embedded store's checkpoints, run on a thread of their own: the log is copied into the
// database file once it holds enough pages, SQLite then starts the log over instead of letting it
// grow, nothing committed is lost on the way, and a failed thread hands checkpoints back to the
// committing connection.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { CHECKPOINT_PAGES, WalCheckpoints } from '../../src/service/store/wal-checkpoints.js';
import { EMBEDDED_FILE, openDatabase } from '../../src/service/store/db.js';

const PAGES = 50;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A database in WAL mode that never checkpoints inside its own commits, as the store opens it. */
function database() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-checkpoints-'));
  dirs.push(dir);
  const file = path.join(dir, 'outpost.db');
  const conn = new BetterSqlite(file);
  conn.pragma('journal_mode = WAL');
  conn.pragma('wal_autocheckpoint = 0');
  conn.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = conn.prepare('INSERT INTO t (body) VALUES (?)');
  let n = 0;
  /** Commits `count` rows of about a page each, one commit a row. */
  const commit = (count: number, after: () => void = () => {}) => {
    for (let i = 0; i < count; i++) {
      insert.run(`${n++} ${'x'.repeat(4000)}`);
      after();
    }
  };
  return { file, conn, commit, rows: () => n };
}

/** A log of `frames` frames of 4 KB pages, with its header. */
const logBytes = (frames: number) => 32 + frames * (24 + 4096);

describe('checkpoints on their own thread', () => {
  it('copies the log into the database once it holds enough pages, so the log starts over', async () => {
    const db = database();
    const fellBack: Error[] = [];
    const checkpoints = new WalCheckpoints(db.file, (err) => fellBack.push(err), PAGES);
    let most = 0;
    try {
      // Below the mark, nothing is copied.
      db.commit(5, () => checkpoints.afterCommit());
      await checkpoints.settled();
      expect(checkpoints.uncopied()).toBeGreaterThanOrEqual(5);
      // Committing on, about six marks' worth of pages.
      for (let i = 0; i < 150; i++) {
        db.commit(1, () => checkpoints.afterCommit());
        await checkpoints.settled();
        most = Math.max(most, checkpoints.uncopied());
      }
    } finally {
      await checkpoints.close();
    }
    expect(fellBack).toEqual([]);
    // Copied whenever a commit passed the mark; left alone, the log would hold every frame.
    expect(most).toBeLessThan(PAGES + 5);
    expect(fs.statSync(`${db.file}-wal`).size).toBeLessThan(logBytes(PAGES + 5));

    const committed = db.rows();
    db.conn.close();
    const reopened = new BetterSqlite(db.file);
    expect(reopened.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: committed });
    reopened.close();
  });

  it('hands checkpoints back to the committing connection when its thread cannot make them', async () => {
    const db = database();
    const fellBack: Error[] = [];
    const checkpoints = new WalCheckpoints(db.file, (err) => fellBack.push(err), PAGES);
    // The thread opens the database by name, and no longer finds it; this connection keeps its file open.
    fs.renameSync(db.file, `${db.file}.moved`);
    try {
      for (let i = 0; i < 2 * PAGES; i++) {
        db.commit(1, () => checkpoints.afterCommit());
        await checkpoints.settled();
      }
    } finally {
      await checkpoints.close();
      db.conn.close();
    }
    expect(fellBack.map((e) => e.message)).toEqual([expect.stringMatching(/open/i)]);
  });
});

describe('the embedded store', () => {
  it('keeps its log within a checkpoint of pages while writers never pause, and loses no write', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-checkpoints-'));
    dirs.push(dir);
    const db = await openDatabase({ dataDir: dir });
    const log = path.join(dir, `${EMBEDDED_FILE}-wal`);
    let largest = 0;
    try {
      await db.query('CREATE TABLE filler (id integer PRIMARY KEY, body text NOT NULL)');
      const body = 'x'.repeat(3500);
      // About 2.5 checkpoints' worth of pages, from writers that each begin again at once.
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let i = 0; i < 320; i++) {
            await db.tx(async (q) => {
              for (let j = 0; j < 10; j++) await q.query('INSERT INTO filler (body) VALUES ($1)', [body]);
            });
            largest = Math.max(largest, fs.statSync(log).size);
          }
        }),
      );
      expect((await db.query<{ n: number }>('SELECT count(*) AS n FROM filler'))[0].n).toBe(8 * 320 * 10);
    } finally {
      await db.close();
    }
    // Left to grow, the log would hold every page written (over 25,000).
    expect(largest).toBeGreaterThan(logBytes(CHECKPOINT_PAGES / 2));
    expect(largest).toBeLessThan(logBytes(CHECKPOINT_PAGES + 500));
  });
});
