// Account variables: one row per (account, key).

import type { Sql } from './db.js';

export interface VariableRow {
  account_id: string;
  key: string;
  value: string;
  locked: boolean;
  secret: boolean;
  created_at: Date;
  updated_at: Date | null;
}

export class VariableRepository {
  constructor(private readonly db: Sql) {}

  async list(accountId: string): Promise<VariableRow[]> {
    return this.db.query<VariableRow>('SELECT * FROM variables WHERE account_id = $1 ORDER BY key', [accountId]);
  }

  /** Every account's variables, for the cache agents' jobs are filled from. */
  async all(): Promise<VariableRow[]> {
    return this.db.query<VariableRow>('SELECT * FROM variables ORDER BY key');
  }

  async get(accountId: string, key: string): Promise<VariableRow | null> {
    return (await this.db.query<VariableRow>('SELECT * FROM variables WHERE account_id = $1 AND key = $2', [accountId, key]))[0] ?? null;
  }

  /** null when the key is taken. */
  async insert(accountId: string, v: { key: string; value: string; locked: boolean; secret: boolean }): Promise<VariableRow | null> {
    const rows = await this.db.query<VariableRow>(
      'INSERT INTO variables (account_id, key, value, locked, secret) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING *',
      [accountId, v.key, v.value, v.locked, v.secret],
    );
    return rows[0] ?? null;
  }

  async update(accountId: string, key: string, v: { value: string; locked: boolean; secret: boolean }): Promise<VariableRow | null> {
    const rows = await this.db.query<VariableRow>(
      'UPDATE variables SET value = $3, locked = $4, secret = $5, updated_at = $6 WHERE account_id = $1 AND key = $2 RETURNING *',
      [accountId, key, v.value, v.locked, v.secret, new Date()],
    );
    return rows[0] ?? null;
  }

  async delete(accountId: string, key: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM variables WHERE account_id = $1 AND key = $2 RETURNING key', [accountId, key])).length > 0;
  }
}
