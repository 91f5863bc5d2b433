// Maintenance windows: one row each, its settings as JSON (occurrences are computed, not stored).

import type { MaintenanceWindow } from '../../domain/maintenance.js';
import type { Sql } from './db.js';

/** A window as stored: what decides its occurrences and effects, and what people read. */
export interface WindowConfig extends MaintenanceWindow {
  name: string;
  description: string | null;
  statusPageVisibility: Record<string, unknown> | null;
}

export interface WindowRow {
  id: number;
  account_id: string;
  name: string;
  config: WindowConfig;
  created_at: Date;
  updated_at: Date | null;
}

export class MaintenanceWindowRepository {
  constructor(private readonly db: Sql) {}

  async insert(accountId: string, config: WindowConfig): Promise<WindowRow> {
    const [row] = await this.db.query<WindowRow>(
      'INSERT INTO maintenance_windows (account_id, name, config) VALUES ($1, $2, $3) RETURNING *',
      [accountId, config.name, JSON.stringify(config)],
    );
    return row;
  }

  async update(accountId: string, id: number, config: WindowConfig): Promise<WindowRow | null> {
    const rows = await this.db.query<WindowRow>(
      'UPDATE maintenance_windows SET name = $3, config = $4, updated_at = $5 WHERE id = $1 AND account_id = $2 RETURNING *',
      [id, accountId, config.name, JSON.stringify(config), new Date()],
    );
    return rows[0] ?? null;
  }

  async get(accountId: string, id: number): Promise<WindowRow | null> {
    return (
      (await this.db.query<WindowRow>('SELECT * FROM maintenance_windows WHERE id = $1 AND account_id = $2', [id, accountId]))[0] ?? null
    );
  }

  /** The account's windows, oldest first. */
  list(accountId: string): Promise<WindowRow[]> {
    return this.db.query<WindowRow>('SELECT * FROM maintenance_windows WHERE account_id = $1 ORDER BY id', [accountId]);
  }

  /** Every window of every account: the service keeps them in memory. */
  all(): Promise<WindowRow[]> {
    return this.db.query<WindowRow>('SELECT * FROM maintenance_windows ORDER BY id');
  }

  async delete(accountId: string, id: number): Promise<boolean> {
    return (
      (await this.db.query('DELETE FROM maintenance_windows WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId])).length > 0
    );
  }
}
