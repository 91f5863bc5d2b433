// Dashboards: public or private pages of checks, which dashboard incidents are shown on. The
// number `id` is what incidents reference; the string `dashboard_id` is the one paths use.

import { randomBytes } from 'node:crypto';
import type { Sql } from './db.js';

export interface DashboardRow {
  id: number;
  dashboard_id: string;
  account_id: string;
  custom_url: string | null;
  custom_domain: string | null;
  config: Record<string, unknown>;
  created_at: Date;
  updated_at: Date | null;
}

export class DashboardRepository {
  constructor(private readonly db: Sql) {}

  /** The field ('customUrl' or 'customDomain') another dashboard already uses, if any. */
  async taken(c: { customUrl: string | null; customDomain: string | null }, except: number | null): Promise<string | null> {
    for (const [field, column, value] of [
      ['customUrl', 'custom_url', c.customUrl],
      ['customDomain', 'custom_domain', c.customDomain],
    ] as const) {
      if (!value) continue;
      const rows = await this.db.query(`SELECT id FROM dashboards WHERE ${column} = $1 AND id <> $2`, [value, except ?? -1]);
      if (rows.length) return field;
    }
    return null;
  }

  async insert(accountId: string, config: Record<string, unknown> & { customUrl: string | null; customDomain: string | null }) {
    const [row] = await this.db.query<DashboardRow>(
      `INSERT INTO dashboards (dashboard_id, account_id, custom_url, custom_domain, config) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
      [randomBytes(12).toString('hex'), accountId, config.customUrl, config.customDomain, JSON.stringify(config)],
    );
    return row;
  }

  async update(accountId: string, id: number, config: Record<string, unknown> & { customUrl: string | null; customDomain: string | null }) {
    const rows = await this.db.query<DashboardRow>(
      `UPDATE dashboards SET custom_url = $3, custom_domain = $4, config = $5, updated_at = $6 WHERE id = $1 AND account_id = $2 RETURNING *`,
      [id, accountId, config.customUrl, config.customDomain, JSON.stringify(config), new Date()],
    );
    return rows[0] ?? null;
  }

  /** By its path id, or by its custom URL or domain. */
  async find(accountId: string, by: 'dashboard_id' | 'custom_url' | 'custom_domain', value: string): Promise<DashboardRow | null> {
    return (
      (await this.db.query<DashboardRow>(`SELECT * FROM dashboards WHERE ${by} = $1 AND account_id = $2`, [value, accountId]))[0] ?? null
    );
  }

  /** The dashboard served at /dashboards/<slug> (its custom URL or its id), whoever owns it. */
  async bySlug(slug: string): Promise<DashboardRow | null> {
    const rows = await this.db.query<DashboardRow>('SELECT * FROM dashboards WHERE custom_url = $1 OR dashboard_id = $1 ORDER BY id', [
      slug,
    ]);
    return rows.find((r) => r.custom_url === slug) ?? rows[0] ?? null;
  }

  /** The dashboard served on a custom domain, whoever owns it. */
  async byDomain(domain: string): Promise<DashboardRow | null> {
    return (await this.db.query<DashboardRow>('SELECT * FROM dashboards WHERE custom_domain = $1', [domain]))[0] ?? null;
  }

  async byNumber(accountId: string, id: number): Promise<DashboardRow | null> {
    return (await this.db.query<DashboardRow>('SELECT * FROM dashboards WHERE id = $1 AND account_id = $2', [id, accountId]))[0] ?? null;
  }

  async list(accountId: string, limit: number, offset: number): Promise<DashboardRow[]> {
    return this.db.query<DashboardRow>(`SELECT * FROM dashboards WHERE account_id = $1 ORDER BY id LIMIT ${limit} OFFSET ${offset}`, [
      accountId,
    ]);
  }

  async delete(accountId: string, id: number): Promise<boolean> {
    return (await this.db.query('DELETE FROM dashboards WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId])).length > 0;
  }
}
