// Snippets: shared setup and teardown code, numbered per installation.

import type { Queryable } from './db.js';

export interface SnippetRow {
  id: number;
  account_id: string;
  name: string;
  script: string;
  created_at: Date;
  updated_at: Date | null;
}

export async function insertSnippet(db: Queryable, accountId: string, name: string, script: string): Promise<SnippetRow> {
  const [row] = await db.query<SnippetRow>('INSERT INTO snippets (account_id, name, script) VALUES ($1, $2, $3) RETURNING *', [
    accountId,
    name,
    script,
  ]);
  return row;
}

export async function listSnippets(db: Queryable, accountId: string): Promise<SnippetRow[]> {
  return db.query<SnippetRow>('SELECT * FROM snippets WHERE account_id = $1 ORDER BY id', [accountId]);
}

/** Every account's snippets, for the cache leased jobs are filled from. */
export async function allSnippets(db: Queryable): Promise<SnippetRow[]> {
  return db.query<SnippetRow>('SELECT * FROM snippets');
}

export async function getSnippet(db: Queryable, accountId: string, id: number): Promise<SnippetRow | null> {
  return (await db.query<SnippetRow>('SELECT * FROM snippets WHERE id = $1 AND account_id = $2', [id, accountId]))[0] ?? null;
}

export async function updateSnippet(
  db: Queryable,
  accountId: string,
  id: number,
  name: string,
  script: string,
): Promise<SnippetRow | null> {
  const rows = await db.query<SnippetRow>(
    'UPDATE snippets SET name = $3, script = $4, updated_at = now() WHERE id = $1 AND account_id = $2 RETURNING *',
    [id, accountId, name, script],
  );
  return rows[0] ?? null;
}

/** Ids of the account's checks whose setup or teardown uses the snippet. */
export async function checksUsingSnippet(db: Queryable, accountId: string, id: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM checks WHERE account_id = $1 AND ((config->>'setupSnippetId')::int = $2 OR (config->>'tearDownSnippetId')::int = $2)`,
    [accountId, id],
  );
  return rows.map((r) => r.id);
}

export async function deleteSnippet(db: Queryable, accountId: string, id: number): Promise<boolean> {
  return (await db.query('DELETE FROM snippets WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId])).length > 0;
}
