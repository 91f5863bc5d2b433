// Trigger URLs: one secret token per check, which runs the check when called.

import type { CheckRow } from './checks.js';
import type { Queryable } from './db.js';

export interface TriggerRow {
  check_id: string;
  account_id: string;
  token: string;
  created_at: Date;
}

export async function getTrigger(db: Queryable, accountId: string, checkId: string): Promise<TriggerRow | null> {
  return (
    (await db.query<TriggerRow>('SELECT * FROM check_triggers WHERE check_id = $1 AND account_id = $2', [checkId, accountId]))[0] ?? null
  );
}

export async function insertTrigger(db: Queryable, accountId: string, checkId: string, token: string): Promise<TriggerRow> {
  const [row] = await db.query<TriggerRow>('INSERT INTO check_triggers (check_id, account_id, token) VALUES ($1, $2, $3) RETURNING *', [
    checkId,
    accountId,
    token,
  ]);
  return row;
}

export async function deleteTrigger(db: Queryable, accountId: string, checkId: string): Promise<boolean> {
  const gone = await db.query('DELETE FROM check_triggers WHERE check_id = $1 AND account_id = $2 RETURNING check_id', [
    checkId,
    accountId,
  ]);
  return gone.length > 0;
}

/** The check a trigger URL names, when its token matches. */
export async function checkByTrigger(db: Queryable, checkId: string, token: string): Promise<CheckRow | null> {
  const rows = await db.query<CheckRow>(
    'SELECT c.* FROM check_triggers t JOIN checks c ON c.id = t.check_id WHERE t.check_id = $1 AND t.token = $2',
    [checkId, token],
  );
  return rows[0] ?? null;
}
