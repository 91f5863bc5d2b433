// SQLite copies its write-ahead log into the database file at checkpoints. Left to SQLite
// (wal_autocheckpoint), the connection whose commit fills the log does the copy at once, inside
// that commit: reading the log's pages, writing them into the database and syncing it held the
// service's event loop for as long as that took, every 40 MB of writes. Here a worker thread with
// a connection of its own does it once the log holds CHECKPOINT_PAGES pages not yet copied;
// meanwhile the service holds its writes back (its event loop goes on), so the checkpoint reaches
// the log's end and SQLite starts the log over. Should that thread fail, the service's
// connection checkpoints inside its commits again, as before.

import fs from 'node:fs';
import os from 'node:os';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { workerScript } from '../../worker-script.js';

/**
 * Pages of log a checkpoint waits for. Commits rewrite the same index pages again and again; a
 * page is copied once per checkpoint, and 10,000 pages (40 MB, replayed at most once after a
 * crash) wrote a quarter fewer bytes per result than SQLite's 1,000 in the store bench.
 */
export const CHECKPOINT_PAGES = 10_000;

// The wal-index header at the start of the -shm file (sqlite.org/walformat.html), in the
// machine's byte order: the log's last valid frame, and how many frames are in the database.
const MX_FRAME_AT = 16;
const N_BACKFILL_AT = 96;
const LITTLE_ENDIAN = os.endianness() === 'LE';

const WORKER = workerScript(import.meta.url, './checkpoint-worker.js');

/** The thread's answer to a checkpoint: done, or why not. */
type Answer = { error?: string };

export class WalCheckpoints {
  private worker: Worker | null = null;
  private shm: number | null = null;
  private running: Promise<void> | null = null;
  private failed = false;
  private readonly header = Buffer.alloc(N_BACKFILL_AT + 4);

  constructor(
    /** The database file; its log and wal-index sit beside it (-wal, -shm). */
    private readonly dbFile: string,
    /** Called once, if the worker fails: the service's connection must checkpoint again itself. */
    private readonly fallBack: (err: Error) => void,
    private readonly pages = CHECKPOINT_PAGES,
  ) {}

  /** After a commit: starts a checkpoint when the log holds enough uncopied pages and none runs. */
  afterCommit(): void {
    if (this.running || this.failed) return;
    let uncopied: number;
    try {
      uncopied = this.uncopied();
    } catch (err) {
      return this.fail(err as Error);
    }
    if (uncopied >= this.pages) this.running = this.checkpoint().finally(() => (this.running = null));
  }

  /** Frames of the log not yet copied into the database file. */
  uncopied(): number {
    this.shm ??= fs.openSync(`${this.dbFile}-shm`, 'r');
    if (fs.readSync(this.shm, this.header, 0, this.header.length, 0) < this.header.length) return 0;
    const u32 = (at: number) => (LITTLE_ENDIAN ? this.header.readUInt32LE(at) : this.header.readUInt32BE(at));
    return Math.max(0, u32(MX_FRAME_AT) - u32(N_BACKFILL_AT));
  }

  /** Whether a checkpoint is running: the log's writer must wait for it (see db.ts). */
  get busy(): boolean {
    return this.running !== null;
  }

  /** Resolves once no checkpoint is running. */
  async settled(): Promise<void> {
    await this.running;
  }

  async close(): Promise<void> {
    await this.running;
    const w = this.worker;
    this.worker = null;
    if (w) {
      const exited = once(w, 'exit');
      w.postMessage('close');
      await exited;
    }
    if (this.shm !== null) fs.closeSync(this.shm);
    this.shm = null;
  }

  private async checkpoint(): Promise<void> {
    const w = this.workerNow();
    const answer = new Promise<Answer>((resolve) => (this.answer = resolve));
    // A running checkpoint keeps the process alive (writes are waiting for it); an idle thread does not.
    w.ref();
    w.postMessage('checkpoint');
    const a = await answer;
    w.unref();
    if (a.error !== undefined) this.fail(new Error(a.error));
  }

  /** Hears the running checkpoint's answer. */
  private answer: ((a: Answer) => void) | null = null;

  private workerNow(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(WORKER, { workerData: { file: this.dbFile } });
    const hear = (a: Answer) => {
      const answer = this.answer;
      this.answer = null;
      answer?.(a);
    };
    w.on('message', hear);
    w.on('error', (err) => hear({ error: err.message || String(err) }));
    w.on('exit', (code) => {
      if (this.worker === w) hear({ error: `the checkpoint thread exited (${code})` });
    });
    w.unref();
    this.worker = w;
    return w;
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = true;
    void this.worker?.terminate();
    this.worker = null;
    this.fallBack(err);
  }
}
