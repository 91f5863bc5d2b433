// Status pages: a URL slug (and maybe a custom domain), a look, and cards of services.

import { randomUUID } from 'node:crypto';
import type { Sql } from './db.js';

export interface Card {
  id: string;
  name: string;
  serviceIds: string[];
  created_at: string;
  updated_at: string | null;
}

export interface StatusPageConfig {
  name: string;
  url: string;
  customDomain: string | null;
  cards: Card[];
  [field: string]: unknown;
}

export interface StatusPageRow {
  id: string;
  account_id: string;
  url: string;
  custom_domain: string | null;
  config: StatusPageConfig;
  created_at: Date;
  updated_at: Date | null;
}

export class StatusPageRepository {
  constructor(private readonly db: Sql) {}

  /** Which of url and customDomain another page already uses, if either. */
  async taken(c: { url: string; customDomain: string | null }, except: string | null): Promise<'url' | 'customDomain' | null> {
    if ((await this.db.query('SELECT id FROM status_pages WHERE url = $1 AND id <> $2', [c.url, except ?? ''])).length) return 'url';
    if (
      c.customDomain &&
      (await this.db.query('SELECT id FROM status_pages WHERE custom_domain = $1 AND id <> $2', [c.customDomain, except ?? ''])).length
    )
      return 'customDomain';
    return null;
  }

  async insert(accountId: string, config: StatusPageConfig): Promise<StatusPageRow> {
    const [row] = await this.db.query<StatusPageRow>(
      'INSERT INTO status_pages (id, account_id, url, custom_domain, config, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *',
      [randomUUID(), accountId, config.url, config.customDomain, JSON.stringify(config), new Date()],
    );
    return row;
  }

  async update(accountId: string, id: string, config: StatusPageConfig): Promise<StatusPageRow | null> {
    const rows = await this.db.query<StatusPageRow>(
      'UPDATE status_pages SET url = $3, custom_domain = $4, config = $5, updated_at = $6 WHERE id = $1 AND account_id = $2 RETURNING *',
      [id, accountId, config.url, config.customDomain, JSON.stringify(config), new Date()],
    );
    return rows[0] ?? null;
  }

  async get(accountId: string, id: string): Promise<StatusPageRow | null> {
    return (await this.db.query<StatusPageRow>('SELECT * FROM status_pages WHERE id = $1 AND account_id = $2', [id, accountId]))[0] ?? null;
  }

  /** The page served at /status/<url>, whoever owns it. */
  async bySlug(url: string): Promise<StatusPageRow | null> {
    return (await this.db.query<StatusPageRow>('SELECT * FROM status_pages WHERE url = $1', [url]))[0] ?? null;
  }

  /** The page served on a custom domain, whoever owns it. */
  async byDomain(domain: string): Promise<StatusPageRow | null> {
    return (await this.db.query<StatusPageRow>('SELECT * FROM status_pages WHERE custom_domain = $1', [domain]))[0] ?? null;
  }

  /** The account's pages, oldest first. */
  list(accountId: string): Promise<StatusPageRow[]> {
    return this.db.query<StatusPageRow>('SELECT * FROM status_pages WHERE account_id = $1 ORDER BY created_at, id', [accountId]);
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM status_pages WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId])).length > 0;
  }
}
