// Account variables: one row per (account, key).

import type { Queryable } from './db.js';

export interface VariableRow {
  account_id: string;
  key: string;
  value: string;
  locked: boolean;
  secret: boolean;
  created_at: Date;
  updated_at: Date | null;
}

export async function listVariables(db: Queryable, accountId: string): Promise<VariableRow[]> {
  return db.query<VariableRow>('SELECT * FROM variables WHERE account_id = $1 ORDER BY key', [accountId]);
}

/** Every account's variables, for the cache agents' jobs are filled from. */
export async function allVariables(db: Queryable): Promise<VariableRow[]> {
  return db.query<VariableRow>('SELECT * FROM variables ORDER BY key');
}

export async function getVariable(db: Queryable, accountId: string, key: string): Promise<VariableRow | null> {
  return (await db.query<VariableRow>('SELECT * FROM variables WHERE account_id = $1 AND key = $2', [accountId, key]))[0] ?? null;
}

/** null when the key is taken. */
export async function insertVariable(
  db: Queryable,
  accountId: string,
  v: { key: string; value: string; locked: boolean; secret: boolean },
): Promise<VariableRow | null> {
  const rows = await db.query<VariableRow>(
    'INSERT INTO variables (account_id, key, value, locked, secret) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING *',
    [accountId, v.key, v.value, v.locked, v.secret],
  );
  return rows[0] ?? null;
}

export async function updateVariable(
  db: Queryable,
  accountId: string,
  key: string,
  v: { value: string; locked: boolean; secret: boolean },
): Promise<VariableRow | null> {
  const rows = await db.query<VariableRow>(
    'UPDATE variables SET value = $3, locked = $4, secret = $5, updated_at = now() WHERE account_id = $1 AND key = $2 RETURNING *',
    [accountId, key, v.value, v.locked, v.secret],
  );
  return rows[0] ?? null;
}

export async function deleteVariable(db: Queryable, accountId: string, key: string): Promise<boolean> {
  return (await db.query('DELETE FROM variables WHERE account_id = $1 AND key = $2 RETURNING key', [accountId, key])).length > 0;
}
