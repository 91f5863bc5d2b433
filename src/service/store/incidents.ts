// Dashboard incidents and their updates (a timeline: each update is a status and a description).

import { randomUUID } from 'node:crypto';
import { inList, type Sql } from './db.js';

export interface IncidentRow {
  id: string;
  account_id: string;
  dashboard_id: number;
  name: string;
  impact: string;
  started_at: Date | null;
  stopped_at: Date | null;
  created_at: Date;
  updated_at: Date | null;
}

export interface IncidentUpdateRow {
  id: string;
  incident_id: string;
  status: string;
  description: string;
  created_at: Date;
  updated_at: Date | null;
}

export interface IncidentFields {
  name: string;
  impact: string;
  startedAt: Date | null;
  stoppedAt: Date | null;
}

export class IncidentRepository {
  constructor(private readonly db: Sql) {}

  /** The incident and its first update, together. */
  async insert(
    accountId: string,
    dashboardId: number,
    f: IncidentFields,
    first: { status: string; description: string },
  ): Promise<IncidentRow> {
    return this.db.tx(async (q) => {
      const [row] = await q.query<IncidentRow>(
        `INSERT INTO incidents (id, account_id, dashboard_id, name, impact, started_at, stopped_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
        [randomUUID(), accountId, dashboardId, f.name, f.impact, f.startedAt, f.stoppedAt, new Date()],
      );
      await q.query('INSERT INTO incident_updates (id, incident_id, status, description, created_at) VALUES ($1, $2, $3, $4, $5)', [
        randomUUID(),
        row.id,
        first.status,
        first.description,
        new Date(),
      ]);
      return row;
    });
  }

  async update(accountId: string, id: string, f: IncidentFields): Promise<IncidentRow | null> {
    const rows = await this.db.query<IncidentRow>(
      `UPDATE incidents SET name = $3, impact = $4, started_at = $5, stopped_at = $6, updated_at = $7
       WHERE id = $1 AND account_id = $2 RETURNING *`,
      [id, accountId, f.name, f.impact, f.startedAt, f.stoppedAt, new Date()],
    );
    return rows[0] ?? null;
  }

  async get(accountId: string, id: string): Promise<IncidentRow | null> {
    return (await this.db.query<IncidentRow>('SELECT * FROM incidents WHERE id = $1 AND account_id = $2', [id, accountId]))[0] ?? null;
  }

  /** A dashboard's incidents begun since `since` or not stopped yet, newest first. */
  onDashboard(dashboardId: number, since: Date): Promise<IncidentRow[]> {
    return this.db.query<IncidentRow>(
      `SELECT * FROM incidents WHERE dashboard_id = $1 AND (created_at >= $2 OR stopped_at IS NULL) ORDER BY created_at DESC, id DESC`,
      [dashboardId, since],
    );
  }

  /** The updates of several incidents, oldest first. */
  updatesOf(incidentIds: string[]): Promise<IncidentUpdateRow[]> {
    if (!incidentIds.length) return Promise.resolve([]);
    return this.db.query<IncidentUpdateRow>(
      `SELECT * FROM incident_updates WHERE incident_id ${inList(this.db, '$1')} ORDER BY created_at, id`,
      [incidentIds],
    );
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM incidents WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId])).length > 0;
  }

  /** The incident's updates, oldest first. */
  updates(incidentId: string): Promise<IncidentUpdateRow[]> {
    return this.db.query<IncidentUpdateRow>('SELECT * FROM incident_updates WHERE incident_id = $1 ORDER BY created_at, id', [incidentId]);
  }

  async addUpdate(incidentId: string, u: { status: string; description: string }): Promise<IncidentUpdateRow> {
    const [row] = await this.db.query<IncidentUpdateRow>(
      'INSERT INTO incident_updates (id, incident_id, status, description, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING *',
      [randomUUID(), incidentId, u.status, u.description, new Date()],
    );
    return row;
  }

  async editUpdate(incidentId: string, id: string, description: string): Promise<IncidentUpdateRow | null> {
    const rows = await this.db.query<IncidentUpdateRow>(
      'UPDATE incident_updates SET description = $3, updated_at = $4 WHERE id = $1 AND incident_id = $2 RETURNING *',
      [id, incidentId, description, new Date()],
    );
    return rows[0] ?? null;
  }

  /** Deletes an update unless it is the incident's last one (an incident keeps one at least). */
  async deleteUpdate(incidentId: string, id: string): Promise<'deleted' | 'missing' | 'last'> {
    return this.db.tx(async (q) => {
      const all = await q.query<{ id: string }>('SELECT id FROM incident_updates WHERE incident_id = $1', [incidentId]);
      if (!all.some((u) => u.id === id)) return 'missing';
      if (all.length === 1) return 'last';
      await q.query('DELETE FROM incident_updates WHERE id = $1', [id]);
      return 'deleted';
    });
  }
}
