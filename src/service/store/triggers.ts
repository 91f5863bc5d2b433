// Trigger URLs: one secret token per check, which runs the check when called.

import type { CheckRow } from './checks.js';
import type { Sql } from './db.js';

export interface TriggerRow {
  check_id: string;
  account_id: string;
  token: string;
  created_at: Date;
}

export class TriggerRepository {
  constructor(private readonly db: Sql) {}

  async get(accountId: string, checkId: string): Promise<TriggerRow | null> {
    const rows = await this.db.query<TriggerRow>('SELECT * FROM check_triggers WHERE check_id = $1 AND account_id = $2', [
      checkId,
      accountId,
    ]);
    return rows[0] ?? null;
  }

  async insert(accountId: string, checkId: string, token: string): Promise<TriggerRow> {
    const [row] = await this.db.query<TriggerRow>(
      'INSERT INTO check_triggers (check_id, account_id, token, created_at) VALUES ($1, $2, $3, $4) RETURNING *',
      [checkId, accountId, token, new Date()],
    );
    return row;
  }

  async delete(accountId: string, checkId: string): Promise<boolean> {
    const gone = await this.db.query('DELETE FROM check_triggers WHERE check_id = $1 AND account_id = $2 RETURNING check_id', [
      checkId,
      accountId,
    ]);
    return gone.length > 0;
  }

  /** The check a trigger URL names, when its token matches. */
  async checkByToken(checkId: string, token: string): Promise<CheckRow | null> {
    const rows = await this.db.query<CheckRow>(
      'SELECT c.* FROM check_triggers t JOIN checks c ON c.id = t.check_id WHERE t.check_id = $1 AND t.token = $2',
      [checkId, token],
    );
    return rows[0] ?? null;
  }
}
