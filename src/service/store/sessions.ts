// Check sessions and the results that belong to them.

import type { Sql } from './db.js';

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

export class SessionRepository {
  constructor(private readonly db: Sql) {}

  async insert(s: {
    id: string;
    accountId: string;
    checkId: string;
    checkType: string;
    name: string;
    runSource: string;
    runLocations: string[];
    startedAt: number;
  }): Promise<SessionRow> {
    const [row] = await this.db.query<SessionRow>(
      `INSERT INTO check_sessions (id, account_id, check_id, check_type, name, status, run_source, run_locations, started_at)
       VALUES ($1, $2, $3, $4, $5, 'STARTED', $6, $7, $8) RETURNING *`,
      [s.id, s.accountId, s.checkId, s.checkType, s.name, s.runSource, JSON.stringify(s.runLocations), new Date(s.startedAt)],
    );
    return row;
  }

  /** The session, within the account when one is given. */
  async get(id: string, accountId?: string): Promise<SessionRow | null> {
    const rows =
      accountId === undefined
        ? await this.db.query<SessionRow>('SELECT * FROM check_sessions WHERE id = $1', [id])
        : await this.db.query<SessionRow>('SELECT * FROM check_sessions WHERE id = $1 AND account_id = $2', [id, accountId]);
    return rows[0] ?? null;
  }

  async results(sessionId: string): Promise<SessionResultRow[]> {
    return this.db.query<SessionResultRow>('SELECT * FROM check_results WHERE session_id = $1 ORDER BY stopped_at', [sessionId]);
  }

  async outcomes(sessionId: string): Promise<{ has_failures: boolean; is_degraded: boolean | null }[]> {
    return this.db.query('SELECT has_failures, is_degraded FROM check_results WHERE session_id = $1', [sessionId]);
  }

  /** Sessions without a final status, of every account. */
  async open(): Promise<SessionRow[]> {
    return this.db.query<SessionRow>(`SELECT * FROM check_sessions WHERE status IN ('STARTED', 'PROGRESS')`);
  }

  async markInProgress(id: string): Promise<void> {
    await this.db.query(`UPDATE check_sessions SET status = 'PROGRESS' WHERE id = $1 AND status = 'STARTED'`, [id]);
  }

  /** Sets a final status unless the session already has one; answers the session as it now is. */
  async finish(id: string, status: string): Promise<SessionRow> {
    const [s] = await this.db.query<SessionRow>(
      `UPDATE check_sessions SET status = $2, stopped_at = $3
       WHERE id = $1 AND status NOT IN ('PASSED', 'FAILED', 'DEGRADED', 'TIMED_OUT', 'CANCELLED') RETURNING *`,
      [id, status, new Date()],
    );
    return s ?? (await this.get(id))!;
  }
}
