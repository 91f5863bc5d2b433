// Keys to private status pages and dashboards: tokens a page's owner shares with its readers.
// Stored hashed, like every key; the raw form is shown once, when it is made.

import { inList, type Sql } from './db.js';
import { hashKey, maskKey, newId, newPageKey } from '../secrets.js';

export type PageKind = 'status-page' | 'dashboard';

export interface PageKeyRow {
  id: string;
  page_id: string;
  masked_key: string;
  created_at: Date;
  updated_at: Date | null;
}

const COLUMNS = 'id, page_id, masked_key, created_at, updated_at';

export class PageKeyRepository {
  constructor(private readonly db: Sql) {}

  async create(accountId: string, kind: PageKind, pageId: string): Promise<{ row: PageKeyRow; raw: string }> {
    const raw = newPageKey();
    const [row] = await this.db.query<PageKeyRow>(
      `INSERT INTO page_keys (id, account_id, page_kind, page_id, key_hash, masked_key, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       RETURNING ${COLUMNS}`,
      [newId(), accountId, kind, pageId, hashKey(raw), maskKey(raw), new Date()],
    );
    return { row, raw };
  }

  /** The keys of these pages, oldest first. */
  list(kind: PageKind, pageIds: string[]): Promise<PageKeyRow[]> {
    if (!pageIds.length) return Promise.resolve([]);
    return this.db.query<PageKeyRow>(
      `SELECT ${COLUMNS} FROM page_keys WHERE page_kind = $1 AND page_id ${inList(this.db, '$2')} ORDER BY created_at, id`,
      [kind, pageIds],
    );
  }

  async delete(kind: PageKind, pageId: string, id: string): Promise<boolean> {
    const rows = await this.db.query('DELETE FROM page_keys WHERE page_kind = $1 AND page_id = $2 AND id = $3 RETURNING id', [
      kind,
      pageId,
      id,
    ]);
    return rows.length > 0;
  }

  /** Forgets every key of a page (when the page goes). */
  async deleteAll(kind: PageKind, pageId: string): Promise<void> {
    await this.db.query('DELETE FROM page_keys WHERE page_kind = $1 AND page_id = $2', [kind, pageId]);
  }

  /** Whether the raw key opens the page. */
  async opens(kind: PageKind, pageId: string, raw: string): Promise<boolean> {
    const rows = await this.db.query('SELECT id FROM page_keys WHERE key_hash = $1 AND page_kind = $2 AND page_id = $3', [
      hashKey(raw),
      kind,
      pageId,
    ]);
    return rows.length > 0;
  }
}
