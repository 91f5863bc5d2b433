// Check statuses and days are folds of FINAL results. PostgreSQL folds each batch in the
// statement that stores it. The embedded store folds in bulk instead: a status or day row is a
// random page of its table, and a commit writes every page it touched whole to the log, so
// folding each small batch as it is stored rewrote ~two pages per result (two thirds of the
// store's CPU in a backlog drain). Folded a few seconds later, many results share each page.
//
// Nothing is lost to a crash: results are committed (and acknowledged) at once; `result_folds`
// records the last result (by rowid) whose fold is written, so a restart folds the ones after
// it. Readers of statuses and days settle the pending fold first, so they see every stored
// result.

import type { Database, Sql } from './db.js';
import type { Delivered } from './results.js';

/** A FINAL result as statuses and days take it in. */
export interface Outcome {
  checkId: string;
  accountId: string;
  name: string;
  hasFailures: boolean;
  hasErrors: boolean;
  isDegraded: boolean;
  location: string;
  runId: string;
  stoppedAt: number;
  responseTime: number;
}

export function outcomeOf(d: Delivered): Outcome {
  return {
    checkId: d.job.checkId,
    accountId: d.accountId,
    name: d.job.check.name,
    hasFailures: d.result.hasFailures,
    hasErrors: d.result.hasErrors,
    isDegraded: d.result.isDegraded,
    location: d.job.location,
    runId: String(d.job.dueAt),
    stoppedAt: d.result.stoppedAt,
    responseTime: d.result.responseTime,
  };
}

interface StatusFold {
  latest: Outcome;
  /** The check's name as last stored: a renamed check shows its new name. */
  name: string;
  longest: number;
  shortest: number;
}

/**
 * Outcomes folded in memory: one status per check (the latest result wins, longest and
 * shortest run fold) and one day per check and UTC day. Folding A then B equals folding A and
 * B apart and merging, which is what lets a fold wait.
 */
export class Fold {
  readonly statuses = new Map<string, StatusFold>();
  readonly days = new Map<
    string,
    { checkId: string; day: string; runs: number; failures: number; degraded: number; responseTimeSum: number }
  >();

  get size(): number {
    return this.statuses.size + this.days.size;
  }

  add(o: Outcome): void {
    this.addStatus(o);
    this.addDay(o);
  }

  /** The status part alone (PostgreSQL counts days in the statement that stores results). */
  addStatus(o: Outcome): void {
    const cur = this.statuses.get(o.checkId);
    if (!cur) this.statuses.set(o.checkId, { latest: o, name: o.name, longest: o.responseTime, shortest: o.responseTime });
    else {
      cur.name = o.name;
      cur.longest = Math.max(cur.longest, o.responseTime);
      cur.shortest = Math.min(cur.shortest, o.responseTime);
      if (o.stoppedAt >= cur.latest.stoppedAt) cur.latest = o;
    }
  }

  private addDay(o: Outcome): void {
    const day = new Date(o.stoppedAt).toISOString().slice(0, 10);
    const key = `${o.checkId} ${day}`;
    let d = this.days.get(key);
    if (!d) {
      d = { checkId: o.checkId, day, runs: 0, failures: 0, degraded: 0, responseTimeSum: 0 };
      this.days.set(key, d);
    }
    d.runs++;
    if (o.hasFailures) d.failures++;
    else if (o.isDegraded) d.degraded++;
    d.responseTimeSum += o.responseTime;
  }

  /** Takes in another fold (one whose write did not commit) made before this one. */
  absorb(earlier: Fold): void {
    for (const [checkId, s] of earlier.statuses) {
      const cur = this.statuses.get(checkId);
      if (!cur) this.statuses.set(checkId, s);
      else {
        cur.longest = Math.max(cur.longest, s.longest);
        cur.shortest = Math.min(cur.shortest, s.shortest);
        if (s.latest.stoppedAt > cur.latest.stoppedAt) cur.latest = s.latest;
      }
    }
    for (const [key, d] of earlier.days) {
      const cur = this.days.get(key);
      if (!cur) this.days.set(key, d);
      else {
        cur.runs += d.runs;
        cur.failures += d.failures;
        cur.degraded += d.degraded;
        cur.responseTimeSum += d.responseTimeSum;
      }
    }
  }

  /** Parameters of STATUS_INSERT, one row per check. */
  statusRows(): unknown[][] {
    return [...this.statuses.values()].map((s) => [
      s.latest.checkId,
      s.latest.accountId,
      s.name,
      s.latest.hasFailures,
      s.latest.hasErrors,
      s.latest.isDegraded,
      s.longest,
      s.shortest,
      s.latest.location,
      s.latest.runId,
      new Date(s.latest.stoppedAt),
    ]);
  }
}

export const STATUS_INSERT = `INSERT INTO check_statuses AS s (check_id, account_id, name, has_failures, has_errors, is_degraded,
  longest_run, shortest_run, last_run_location, last_check_run_id, updated_at)`;

/** How a stored status takes in a newer one: the latest result wins, longest and shortest run fold. */
export function statusMerge(greatest: string, least: string): string {
  const latest = (col: string) => `${col} = CASE WHEN EXCLUDED.updated_at >= s.updated_at THEN EXCLUDED.${col} ELSE s.${col} END`;
  return `ON CONFLICT (check_id) DO UPDATE SET
    longest_run = ${greatest}(s.longest_run, EXCLUDED.longest_run),
    shortest_run = ${least}(s.shortest_run, EXCLUDED.shortest_run),
    ${['has_failures', 'has_errors', 'is_degraded', 'last_run_location', 'last_check_run_id'].map(latest).join(',\n    ')},
    name = EXCLUDED.name,
    updated_at = ${greatest}(s.updated_at, EXCLUDED.updated_at)`;
}

// SQLite's two-argument max() and min() are PostgreSQL's GREATEST and LEAST.
const STATUS_UPSERT_SQLITE = `${STATUS_INSERT} VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ${statusMerge('max', 'min')}`;

export const DAY_UPSERT = `INSERT INTO check_days (check_id, day, runs, failures, degraded, response_time_sum)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (check_id, day) DO UPDATE SET runs = check_days.runs + EXCLUDED.runs, failures = check_days.failures + EXCLUDED.failures,
    degraded = check_days.degraded + EXCLUDED.degraded, response_time_sum = check_days.response_time_sum + EXCLUDED.response_time_sum`;

/** A pending fold is written this long after its first result at the latest... */
const FOLD_DELAY_MS = 10_000;
/** ...or as soon as it holds this many rows: one write stays a few milliseconds long. */
const FOLD_MAX_ROWS = 4000;

/** The embedded store's pending fold of stored results, and its durable mark. */
export class ResultFolds {
  private pending = new Fold();
  /** The highest rowid of a result in the pending fold. */
  private pendingThrough = 0;
  private timer: NodeJS.Timeout | null = null;

  private constructor(private readonly db: Database) {}

  /** Folds what the last run of the service stored but had not folded yet. */
  static async open(db: Database): Promise<ResultFolds> {
    const folds = new ResultFolds(db);
    await db.tx(async (q) => {
      // A database from before folds were deferred has folded every result it holds.
      await q.query('INSERT OR IGNORE INTO result_folds (id, through_rowid) SELECT 1, coalesce(max(rowid), 0) FROM check_results');
      const [mark] = await q.query<{ through_rowid: number }>('SELECT through_rowid FROM result_folds WHERE id = 1');
      const rows = await q.query<{
        check_id: string;
        account_id: string;
        name: string;
        has_failures: boolean;
        has_errors: boolean;
        is_degraded: boolean | null;
        run_location: string;
        check_run_id: number;
        stopped_at: Date;
        response_time: number;
      }>(
        `SELECT check_id, account_id, name, has_failures, has_errors, is_degraded, run_location, check_run_id, stopped_at, response_time
         FROM check_results WHERE rowid > $1 AND result_type = 'FINAL' ORDER BY rowid`,
        [mark.through_rowid],
      );
      const fold = new Fold();
      for (const r of rows)
        fold.add({
          checkId: r.check_id,
          accountId: r.account_id,
          name: r.name,
          hasFailures: r.has_failures,
          hasErrors: r.has_errors,
          isDegraded: !!r.is_degraded,
          location: r.run_location,
          runId: String(r.check_run_id),
          stoppedAt: r.stopped_at.getTime(),
          responseTime: r.response_time,
        });
      await writeFold(q, fold);
      await q.query('UPDATE result_folds SET through_rowid = (SELECT coalesce(max(rowid), 0) FROM check_results) WHERE id = 1');
    });
    return folds;
  }

  /** Results stored in q's transaction: folded once it commits (not at all if it does not). */
  added(q: Sql, outcomes: Outcome[], throughRowid: number): void {
    q.afterTx((committed) => {
      if (!committed) return;
      for (const o of outcomes) this.pending.add(o);
      this.pendingThrough = Math.max(this.pendingThrough, throughRowid);
      this.arm();
    });
  }

  /** Writes the pending fold (in q's transaction, when q is one), so reads see every result. */
  async settle(q: Sql = this.db): Promise<void> {
    if (this.pending.size === 0) return;
    await q.tx(async (t) => {
      const fold = this.pending;
      const through = this.pendingThrough;
      this.pending = new Fold();
      // Results stored while this write is open are folded after it; if it fails, its fold
      // goes back in front of them.
      t.afterTx((committed) => {
        if (committed) return;
        fold.absorb(this.pending);
        this.pending = fold;
        this.arm(true);
      });
      await writeFold(t, fold);
      await t.query('UPDATE result_folds SET through_rowid = max(through_rowid, $1) WHERE id = 1', [through]);
    });
  }

  /**
   * After results were deleted (in q's transaction, with nothing pending): new results may take
   * the rowids of deleted ones, so the mark comes down to the highest rowid left.
   */
  async deleted(q: Sql): Promise<void> {
    await q.query('UPDATE result_folds SET through_rowid = (SELECT coalesce(max(rowid), 0) FROM check_results) WHERE id = 1');
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.settle();
  }

  /** Sets the write off: soon when the fold is large, later otherwise or after a failed write. */
  private arm(retry = false): void {
    if (this.pending.size === 0) return;
    const full = !retry && this.pending.size >= FOLD_MAX_ROWS;
    if (this.timer && !full) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = null;
        // A write that fails puts its fold back and re-arms: it is tried again later.
        this.settle().then(
          () => this.arm(),
          () => {},
        );
      },
      full ? 0 : FOLD_DELAY_MS,
    );
    this.timer.unref();
  }
}

async function writeFold(q: Sql, fold: Fold): Promise<void> {
  for (const row of fold.statusRows()) await q.query(STATUS_UPSERT_SQLITE, row);
  for (const d of fold.days.values()) await q.query(DAY_UPSERT, [d.checkId, d.day, d.runs, d.failures, d.degraded, d.responseTimeSum]);
}
