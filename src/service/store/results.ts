import { newOrderedId } from '../secrets.js';
import { columns, inList, type Sql } from './db.js';
import { DAY_UPSERT, Fold, outcomeOf, STATUS_INSERT, statusMerge, type Outcome, type ResultFolds } from './result-folds.js';
import type { Job, RunResult } from '../../domain/run.js';

export interface Delivered {
  /** The result's id, when it was given one before it was stored (the alert engine quotes it). */
  id?: string;
  result: RunResult;
  accountId: string;
  job: Job;
  /** ATTEMPT: a failed run that is retried (not FINAL; it counts for neither status nor alerts). */
  resultType?: 'FINAL' | 'ATTEMPT';
  /** The sequence of attempts it belongs to, and the retries made before it. */
  sequenceId?: string | null;
  attempts?: number;
}

export interface DayRow {
  check_id: string;
  day: string;
  runs: number;
  failures: number;
  degraded: number;
  response_time_sum: number;
}

const STATUS_MERGE_PG = statusMerge('GREATEST', 'LEAST');

const RESULT_INSERT_SQLITE = `
  INSERT INTO check_results (id, job_id, account_id, check_id, check_type, name, run_location, has_failures, has_errors,
    is_degraded, over_max_response_time, response_time, started_at, stopped_at, created_at, check_run_id, error, detail, session_id,
    result_type, attempts, sequence_id)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14, $15, $16, $17, $18, $19, $20, $21)
  ON CONFLICT (job_id) DO NOTHING
  RETURNING rowid`;

const resultRow = (d: Delivered) => [
  d.id ?? newOrderedId(),
  d.result.jobId,
  d.accountId,
  d.job.checkId,
  d.job.checkType,
  d.job.check.name,
  d.job.location,
  d.result.hasFailures,
  d.result.hasErrors,
  d.result.isDegraded,
  d.result.overMaxResponseTime,
  d.result.responseTime,
  d.result.startedAt,
  d.result.stoppedAt,
  d.job.dueAt,
  d.result.error,
  JSON.stringify({ ...d.result.detail, error: d.result.error }),
  d.job.sessionId ?? null,
  d.resultType ?? 'FINAL',
  d.attempts ?? 0,
  d.sequenceId ?? null,
];

export class ResultRepository {
  /** folds: the embedded store's deferred statuses and days (null on PostgreSQL). */
  constructor(
    private readonly db: Sql,
    private readonly folds: ResultFolds | null = null,
  ) {}

  /**
   * Stores a batch of results, removes their job rows and folds them into the check statuses
   * and days, atomically (the embedded store folds in bulk a little later, see result-folds.ts).
   * Idempotent by job id. On PostgreSQL it is one statement: one round trip.
   */
  async store(batch: Delivered[], writtenJobIds: string[]): Promise<void> {
    if (this.folds) {
      const folds = this.folds;
      await this.db.tx(async (q) => {
        // Only what is new is folded: a result delivered again is not counted twice.
        const fresh: Outcome[] = [];
        let through = 0;
        for (const d of batch) {
          const [row] = await q.query<{ rowid: number }>(RESULT_INSERT_SQLITE, resultRow(d));
          if (!row) continue;
          through = Math.max(through, row.rowid);
          if (d.resultType !== 'ATTEMPT') fresh.push(outcomeOf(d));
        }
        await q.query(`DELETE FROM jobs WHERE id ${inList(q, '$1')}`, [writtenJobIds]);
        folds.added(q, fresh, through);
      });
      return;
    }
    const st = new Fold();
    for (const d of batch) if (d.resultType !== 'ATTEMPT') st.addStatus(outcomeOf(d));
    await this.db.query(
      `WITH stored AS (
         INSERT INTO check_results (id, job_id, account_id, check_id, check_type, name, run_location, has_failures, has_errors,
           is_degraded, over_max_response_time, response_time, started_at, stopped_at, created_at, check_run_id, error, detail, session_id,
           result_type, attempts, sequence_id)
         SELECT id, job_id, account_id, check_id, check_type, name, run_location, has_failures, has_errors, is_degraded, over_max,
           response_time, to_timestamp(started / 1000.0), to_timestamp(stopped / 1000.0), to_timestamp(stopped / 1000.0), run_id, error, detail, session_id,
           result_type, attempts, sequence_id
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bool[], $9::bool[],
           $10::bool[], $11::bool[], $12::float8[], $13::float8[], $14::float8[], $15::float8[], $16::text[], $17::jsonb[], $18::text[],
           $19::text[], $20::int[], $21::text[])
           AS t(id, job_id, account_id, check_id, check_type, name, run_location, has_failures, has_errors, is_degraded, over_max,
                response_time, started, stopped, run_id, error, detail, session_id, result_type, attempts, sequence_id)
         ON CONFLICT (job_id) DO NOTHING
         RETURNING check_id, stopped_at, has_failures, is_degraded, response_time, result_type
       ), days AS (
         INSERT INTO check_days (check_id, day, runs, failures, degraded, response_time_sum)
         SELECT check_id, to_char(stopped_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), count(*), count(*) FILTER (WHERE has_failures),
           count(*) FILTER (WHERE is_degraded AND NOT has_failures), sum(response_time)
         FROM stored WHERE result_type = 'FINAL' GROUP BY 1, 2
         ON CONFLICT (check_id, day) DO UPDATE SET runs = check_days.runs + EXCLUDED.runs, failures = check_days.failures + EXCLUDED.failures,
           degraded = check_days.degraded + EXCLUDED.degraded, response_time_sum = check_days.response_time_sum + EXCLUDED.response_time_sum
         RETURNING 1
       ), finished AS (
         DELETE FROM jobs WHERE id = ANY($22::text[]) RETURNING 1
       )
       ${STATUS_INSERT}
       SELECT * FROM unnest($23::text[], $24::text[], $25::text[], $26::bool[], $27::bool[], $28::bool[], $29::float8[], $30::float8[],
         $31::text[], $32::text[], $33::timestamptz[])
       ${STATUS_MERGE_PG}`,
      [...columns(batch.map(resultRow), 21), writtenJobIds, ...columns(st.statusRows(), 11)],
    );
  }

  /** Adds counts to checks' days, as storing those results would have (history brought in from elsewhere). */
  async addDays(rows: DayRow[]): Promise<void> {
    await this.db.tx(async (q) => {
      for (const r of rows) await q.query(DAY_UPSERT, [r.check_id, r.day, r.runs, r.failures, r.degraded, r.response_time_sum]);
    });
  }

  /** The checks' FINAL results by day, from `fromDay` (YYYY-MM-DD, UTC) on. */
  async days(checkIds: string[], fromDay: string): Promise<DayRow[]> {
    if (!checkIds.length) return [];
    await this.folds?.settle(this.db);
    return this.db.query<DayRow>(`SELECT * FROM check_days WHERE check_id ${inList(this.db, '$1')} AND day >= $2 ORDER BY check_id, day`, [
      checkIds,
      fromDay,
    ]);
  }

  /** The checks' FINAL results since `since`: the little a dashboard needs of each. */
  recentFinal(checkIds: string[], since: Date): Promise<{ check_id: string; has_failures: boolean; response_time: number }[]> {
    if (!checkIds.length) return Promise.resolve([]);
    return this.db.query(
      `SELECT check_id, has_failures, response_time FROM check_results
       WHERE check_id ${inList(this.db, '$1')} AND created_at >= $2 AND result_type = 'FINAL'`,
      [checkIds, since],
    );
  }

  async page(f: ResultFilter, limit: number, offset: number): Promise<ResultRow[]> {
    const w = where(f);
    return this.db.query<ResultRow>(
      `SELECT * FROM check_results WHERE ${w.sql} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`,
      w.params,
    );
  }

  /** Keyset page: results older than the cursor (created_at, id). */
  async afterCursor(f: ResultFilter, limit: number, cursor: { at: number; id: string } | null): Promise<ResultRow[]> {
    const w = where(f);
    let sql = w.sql;
    if (cursor) {
      w.params.push(new Date(cursor.at), cursor.id);
      sql += ` AND (created_at, id) < (CAST($${w.params.length - 1} AS timestamptz), $${w.params.length})`;
    }
    return this.db.query<ResultRow>(`SELECT * FROM check_results WHERE ${sql} ORDER BY created_at DESC, id DESC LIMIT ${limit}`, w.params);
  }

  /** The check's latest FINAL result, whatever its account (reminders quote it). */
  async latestOf(checkId: string): Promise<ResultRow | null> {
    const rows = await this.db.query<ResultRow>(
      `SELECT * FROM check_results WHERE check_id = $1 AND result_type = 'FINAL' ORDER BY created_at DESC LIMIT 1`,
      [checkId],
    );
    return rows[0] ?? null;
  }

  async get(accountId: string, checkId: string, id: string): Promise<ResultRow | null> {
    const rows = await this.db.query<ResultRow>('SELECT * FROM check_results WHERE id = $1 AND check_id = $2 AND account_id = $3', [
      id,
      checkId,
      accountId,
    ]);
    return rows[0] ?? null;
  }
}

export interface ResultRow {
  id: string;
  job_id: string;
  check_id: string;
  check_type: string;
  name: string;
  run_location: string;
  result_type: string;
  has_failures: boolean;
  has_errors: boolean;
  is_degraded: boolean | null;
  over_max_response_time: boolean | null;
  response_time: number;
  started_at: Date;
  stopped_at: Date;
  created_at: Date;
  check_run_id: number;
  attempts: number;
  sequence_id: string | null;
  error: string | null;
  detail: Record<string, unknown>;
}

export interface ResultFilter {
  checkId: string;
  accountId: string;
  fromMs: number;
  toMs: number;
  location?: string;
  checkType?: string;
  hasFailures?: boolean;
  resultType: 'FINAL' | 'ATTEMPT' | 'ALL';
}

function where(f: ResultFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [f.checkId, f.accountId, new Date(f.fromMs), new Date(f.toMs)];
  const parts = ['check_id = $1', 'account_id = $2', 'created_at >= $3', 'created_at < $4'];
  const add = (cond: string, v: unknown) => {
    params.push(v);
    parts.push(cond.replace('?', `$${params.length}`));
  };
  if (f.location) add('run_location = ?', f.location);
  if (f.checkType) add('check_type = ?', f.checkType);
  if (f.hasFailures !== undefined) add('has_failures = ?', f.hasFailures);
  if (f.resultType !== 'ALL') add('result_type = ?', f.resultType);
  return { sql: parts.join(' AND '), params };
}

export function toApi(r: ResultRow) {
  const { error: _error, ...detail } = r.detail as Record<string, unknown>;
  return {
    id: r.id,
    name: r.name,
    checkId: r.check_id,
    hasFailures: r.has_failures,
    hasErrors: r.has_errors,
    isDegraded: r.is_degraded,
    overMaxResponseTime: r.over_max_response_time,
    runLocation: r.run_location,
    startedAt: r.started_at.toISOString(),
    stoppedAt: r.stopped_at.toISOString(),
    created_at: r.created_at.toISOString(),
    responseTime: r.response_time,
    apiCheckResult: null,
    browserCheckResult: null,
    multiStepCheckResult: null,
    checkRunId: r.check_run_id,
    attempts: r.attempts,
    resultType: r.result_type,
    sequenceId: r.sequence_id ?? null,
    errorGroupIds: [],
    errorMessage: r.error,
    ...detail,
  };
}
