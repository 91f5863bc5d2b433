// Status-page services: what status pages show and what a check's triggerIncident names.

import { randomUUID } from 'node:crypto';
import type { Sql } from './db.js';

export interface ServiceRow {
  id: string;
  account_id: string;
  name: string;
  created_at: Date;
  updated_at: Date | null;
}

export class StatusPageServiceRepository {
  constructor(private readonly db: Sql) {}

  async insert(accountId: string, name: string): Promise<ServiceRow> {
    const [row] = await this.db.query<ServiceRow>(
      'INSERT INTO status_page_services (id, account_id, name, created_at) VALUES ($1, $2, $3, $4) RETURNING *',
      [randomUUID(), accountId, name, new Date()],
    );
    return row;
  }

  async rename(accountId: string, id: string, name: string): Promise<ServiceRow | null> {
    const rows = await this.db.query<ServiceRow>(
      'UPDATE status_page_services SET name = $3, updated_at = $4 WHERE id = $1 AND account_id = $2 RETURNING *',
      [id, accountId, name, new Date()],
    );
    return rows[0] ?? null;
  }

  async get(accountId: string, id: string): Promise<ServiceRow | null> {
    return (
      (await this.db.query<ServiceRow>('SELECT * FROM status_page_services WHERE id = $1 AND account_id = $2', [id, accountId]))[0] ?? null
    );
  }

  /** The account's services, oldest first. */
  list(accountId: string): Promise<ServiceRow[]> {
    return this.db.query<ServiceRow>('SELECT * FROM status_page_services WHERE account_id = $1 ORDER BY created_at, id', [accountId]);
  }

  /** Checks whose triggerIncident names the service. */
  async triggeringChecks(accountId: string, id: string): Promise<string[]> {
    const names =
      this.db.dialect === 'postgres'
        ? `config->'triggerIncident'->>'serviceId' = $2`
        : `json_extract(config, '$.triggerIncident.serviceId') = $2`;
    return (await this.db.query<{ id: string }>(`SELECT id FROM checks WHERE account_id = $1 AND ${names}`, [accountId, id])).map(
      (r) => r.id,
    );
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (
      (await this.db.query('DELETE FROM status_page_services WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId])).length > 0
    );
  }
}
