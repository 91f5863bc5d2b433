import type { Queryable } from './db.js';

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
  const params: unknown[] = [f.checkId, f.accountId, f.fromMs / 1000, f.toMs / 1000];
  const parts = ['check_id = $1', 'account_id = $2', 'created_at >= to_timestamp($3)', 'created_at < to_timestamp($4)'];
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

export async function pageResults(db: Queryable, f: ResultFilter, limit: number, offset: number): Promise<ResultRow[]> {
  const w = where(f);
  return db.query<ResultRow>(`SELECT * FROM check_results WHERE ${w.sql} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`, w.params);
}

/** Keyset page: results older than the cursor (created_at, id). */
export async function cursorResults(db: Queryable, f: ResultFilter, limit: number, cursor: { at: number; id: string } | null): Promise<ResultRow[]> {
  const w = where(f);
  let sql = w.sql;
  if (cursor) {
    w.params.push(cursor.at / 1000, cursor.id);
    sql += ` AND (created_at, id) < (to_timestamp($${w.params.length - 1}), $${w.params.length})`;
  }
  return db.query<ResultRow>(`SELECT * FROM check_results WHERE ${sql} ORDER BY created_at DESC, id DESC LIMIT ${limit}`, w.params);
}

export async function getResult(db: Queryable, accountId: string, checkId: string, id: string): Promise<ResultRow | null> {
  return (await db.query<ResultRow>('SELECT * FROM check_results WHERE id = $1 AND check_id = $2 AND account_id = $3', [id, checkId, accountId]))[0] ?? null;
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
    sequenceId: null,
    errorGroupIds: [],
    errorMessage: r.error,
    ...detail,
  };
}
