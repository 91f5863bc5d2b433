// Snippets: shared setup and teardown code, numbered per installation.

import type { Sql } from './db.js';

export interface SnippetRow {
  id: number;
  account_id: string;
  name: string;
  script: string;
  created_at: Date;
  updated_at: Date | null;
}

export class SnippetRepository {
  constructor(private readonly db: Sql) {}

  async insert(accountId: string, name: string, script: string): Promise<SnippetRow> {
    const [row] = await this.db.query<SnippetRow>('INSERT INTO snippets (account_id, name, script) VALUES ($1, $2, $3) RETURNING *', [
      accountId,
      name,
      script,
    ]);
    return row;
  }

  async list(accountId: string): Promise<SnippetRow[]> {
    return this.db.query<SnippetRow>('SELECT * FROM snippets WHERE account_id = $1 ORDER BY id', [accountId]);
  }

  /** Every account's snippets, for the cache leased jobs are filled from. */
  async all(): Promise<SnippetRow[]> {
    return this.db.query<SnippetRow>('SELECT * FROM snippets');
  }

  async get(accountId: string, id: number): Promise<SnippetRow | null> {
    return (await this.db.query<SnippetRow>('SELECT * FROM snippets WHERE id = $1 AND account_id = $2', [id, accountId]))[0] ?? null;
  }

  async update(accountId: string, id: number, name: string, script: string): Promise<SnippetRow | null> {
    const rows = await this.db.query<SnippetRow>(
      'UPDATE snippets SET name = $3, script = $4, updated_at = $5 WHERE id = $1 AND account_id = $2 RETURNING *',
      [id, accountId, name, script, new Date()],
    );
    return rows[0] ?? null;
  }

  /** Ids of the account's checks whose setup or teardown uses the snippet. */
  async usedBy(accountId: string, id: number): Promise<string[]> {
    // ->> reads a JSON field as text in both dialects.
    const rows = await this.db.query<{ id: string }>(
      `SELECT id FROM checks WHERE account_id = $1
       AND (CAST(config->>'setupSnippetId' AS integer) = $2 OR CAST(config->>'tearDownSnippetId' AS integer) = $2)`,
      [accountId, id],
    );
    return rows.map((r) => r.id);
  }

  async delete(accountId: string, id: number): Promise<boolean> {
    return (await this.db.query('DELETE FROM snippets WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId])).length > 0;
  }
}
