// Check sessions and the results that belong to them.

import type { Queryable } from './db.js';

export const FINAL_STATUSES = ['PASSED', 'FAILED', 'DEGRADED', 'TIMED_OUT', 'CANCELLED'] as const;

export interface SessionRow {
  id: string;
  account_id: string;
  check_id: string;
  check_type: string;
  name: string;
  status: string;
  run_source: string;
  run_locations: string[];
  started_at: Date;
  stopped_at: Date | null;
}

export interface SessionResultRow {
  id: string;
  check_id: string;
  check_type: string;
  name: string;
  run_location: string;
  result_type: string;
  has_errors: boolean;
  has_failures: boolean;
  is_degraded: boolean | null;
  response_time: number;
  started_at: Date;
  stopped_at: Date;
}

export async function insertSession(
  db: Queryable,
  s: {
    id: string;
    accountId: string;
    checkId: string;
    checkType: string;
    name: string;
    runSource: string;
    runLocations: string[];
    startedAt: number;
  },
): Promise<SessionRow> {
  const [row] = await db.query<SessionRow>(
    `INSERT INTO check_sessions (id, account_id, check_id, check_type, name, status, run_source, run_locations, started_at)
     VALUES ($1, $2, $3, $4, $5, 'STARTED', $6, $7, to_timestamp($8 / 1000.0)) RETURNING *`,
    [s.id, s.accountId, s.checkId, s.checkType, s.name, s.runSource, JSON.stringify(s.runLocations), s.startedAt],
  );
  return row;
}

/** The session, within the account when one is given. */
export async function getSession(db: Queryable, id: string, accountId?: string): Promise<SessionRow | null> {
  const rows =
    accountId === undefined
      ? await db.query<SessionRow>('SELECT * FROM check_sessions WHERE id = $1', [id])
      : await db.query<SessionRow>('SELECT * FROM check_sessions WHERE id = $1 AND account_id = $2', [id, accountId]);
  return rows[0] ?? null;
}

export async function sessionResults(db: Queryable, sessionId: string): Promise<SessionResultRow[]> {
  return db.query<SessionResultRow>('SELECT * FROM check_results WHERE session_id = $1 ORDER BY stopped_at', [sessionId]);
}

export async function sessionOutcomes(db: Queryable, sessionId: string): Promise<{ has_failures: boolean; is_degraded: boolean | null }[]> {
  return db.query('SELECT has_failures, is_degraded FROM check_results WHERE session_id = $1', [sessionId]);
}

export async function markSessionInProgress(db: Queryable, id: string): Promise<void> {
  await db.query(`UPDATE check_sessions SET status = 'PROGRESS' WHERE id = $1 AND status = 'STARTED'`, [id]);
}

/** Sets a final status unless the session already has one; answers the session as it now is. */
export async function finishSession(db: Queryable, id: string, status: string): Promise<SessionRow> {
  const [s] = await db.query<SessionRow>(
    `UPDATE check_sessions SET status = $2, stopped_at = now() WHERE id = $1 AND status NOT IN ('PASSED', 'FAILED', 'DEGRADED', 'TIMED_OUT', 'CANCELLED') RETURNING *`,
    [id, status],
  );
  return s ?? (await getSession(db, id))!;
}
