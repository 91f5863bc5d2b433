// Status-page incidents (on status-page services) and their updates.

import { randomUUID } from 'node:crypto';
import { inList, type Sql } from './db.js';
import { SubscriptionRepository } from './subscriptions.js';
import type { StatusPageConfig } from './status-pages.js';

export interface ServiceIncidentRow {
  id: string;
  account_id: string;
  name: string;
  severity: string;
  service_ids: string[];
  created_at: Date;
  updated_at: Date | null;
}

export interface ServiceIncidentUpdateRow {
  id: string;
  incident_id: string;
  status: string;
  description: string;
  public_incident_update_date: Date;
  notify_subscribers: boolean;
  created_at: Date;
  updated_at: Date | null;
}

export interface UpdateFields {
  status: string;
  description: string;
  publicIncidentUpdateDate?: Date;
  notifySubscribers?: boolean;
}

export class ServiceIncidentRepository {
  constructor(private readonly db: Sql) {}

  /** The incident and its first update, together. */
  async open(
    accountId: string,
    f: { id?: string; name: string; severity: string; serviceIds: string[] },
    first: UpdateFields,
  ): Promise<ServiceIncidentRow> {
    return this.db.tx(async (q) => {
      const [row] = await q.query<ServiceIncidentRow>(
        'INSERT INTO service_incidents (id, account_id, name, severity, service_ids, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *',
        [f.id ?? randomUUID(), accountId, f.name, f.severity, JSON.stringify(f.serviceIds), new Date()],
      );
      await new ServiceIncidentRepository(q).addUpdate(row.id, first);
      return row;
    });
  }

  async update(
    accountId: string,
    id: string,
    f: { name: string; severity: string; serviceIds: string[] },
  ): Promise<ServiceIncidentRow | null> {
    const rows = await this.db.query<ServiceIncidentRow>(
      'UPDATE service_incidents SET name = $3, severity = $4, service_ids = $5, updated_at = $6 WHERE id = $1 AND account_id = $2 RETURNING *',
      [id, accountId, f.name, f.severity, JSON.stringify(f.serviceIds), new Date()],
    );
    return rows[0] ?? null;
  }

  async get(accountId: string, id: string): Promise<ServiceIncidentRow | null> {
    return (
      (await this.db.query<ServiceIncidentRow>('SELECT * FROM service_incidents WHERE id = $1 AND account_id = $2', [id, accountId]))[0] ??
      null
    );
  }

  /** The account's latest incidents, newest first. */
  latest(accountId: string, limit: number): Promise<ServiceIncidentRow[]> {
    return this.db.query<ServiceIncidentRow>(
      `SELECT * FROM service_incidents WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
      [accountId],
    );
  }

  /** What status pages show: the account's incidents begun since `since`, and any still open. */
  shown(accountId: string, since: Date): Promise<ServiceIncidentRow[]> {
    return this.db.query<ServiceIncidentRow>(
      `SELECT * FROM service_incidents i WHERE account_id = $1 AND (created_at >= $2 OR
         (SELECT status FROM service_incident_updates u WHERE u.incident_id = i.id ORDER BY created_at DESC, id DESC LIMIT 1) <> 'RESOLVED')
       ORDER BY created_at DESC, id DESC`,
      [accountId, since],
    );
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (
      (await this.db.query('DELETE FROM service_incidents WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId])).length > 0
    );
  }

  /** Updates of these incidents, oldest first. */
  updates(incidentIds: string[]): Promise<ServiceIncidentUpdateRow[]> {
    if (!incidentIds.length) return Promise.resolve([]);
    return this.db.query<ServiceIncidentUpdateRow>(
      `SELECT * FROM service_incident_updates WHERE incident_id ${inList(this.db, '$1')} ORDER BY created_at, id`,
      [incidentIds],
    );
  }

  /** Adds an update; with notifySubscribers, the emails to the subscribers of its pages go with it. */
  async addUpdate(incidentId: string, u: UpdateFields): Promise<ServiceIncidentUpdateRow> {
    if (!u.notifySubscribers) return this.insertUpdate(incidentId, u);
    return this.db.tx(async (q) => {
      const row = await new ServiceIncidentRepository(q).insertUpdate(incidentId, u);
      await new ServiceIncidentRepository(q).announce(incidentId, row);
      return row;
    });
  }

  /** Queues the update's email to the VERIFIED subscribers of every page showing one of its services. */
  private async announce(incidentId: string, u: ServiceIncidentUpdateRow): Promise<void> {
    const [incident] = await this.db.query<ServiceIncidentRow>('SELECT * FROM service_incidents WHERE id = $1', [incidentId]);
    if (!incident) return;
    const pages = (
      await this.db.query<{ id: string; url: string; config: StatusPageConfig }>(
        'SELECT id, url, config FROM status_pages WHERE account_id = $1',
        [incident.account_id],
      )
    ).filter((p) => p.config.cards.some((c) => c.serviceIds.some((id) => incident.service_ids.includes(id))));
    if (!pages.length) return;
    const services = await this.db.query<{ id: string; name: string }>(
      `SELECT id, name FROM status_page_services WHERE id ${inList(this.db, '$1')} ORDER BY name`,
      [incident.service_ids],
    );
    await new SubscriptionRepository(this.db).announce(
      pages.map((p) => ({ id: p.id, name: p.config.name, url: p.url })),
      {
        incident: incident.name,
        severity: incident.severity,
        status: u.status,
        description: u.description,
        services: services.map((s) => s.name),
      },
    );
  }

  private async insertUpdate(incidentId: string, u: UpdateFields): Promise<ServiceIncidentUpdateRow> {
    const now = new Date();
    const [row] = await this.db.query<ServiceIncidentUpdateRow>(
      `INSERT INTO service_incident_updates (id, incident_id, status, description, public_incident_update_date, notify_subscribers, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [randomUUID(), incidentId, u.status, u.description, u.publicIncidentUpdateDate ?? now, u.notifySubscribers ?? false, now],
    );
    return row;
  }

  async editUpdate(incidentId: string, id: string, u: Partial<UpdateFields>): Promise<ServiceIncidentUpdateRow | null> {
    const [old] = await this.db.query<ServiceIncidentUpdateRow>(
      'SELECT * FROM service_incident_updates WHERE id = $1 AND incident_id = $2',
      [id, incidentId],
    );
    if (!old) return null;
    const [row] = await this.db.query<ServiceIncidentUpdateRow>(
      `UPDATE service_incident_updates SET status = $3, description = $4, public_incident_update_date = $5, notify_subscribers = $6,
         updated_at = $7 WHERE id = $1 AND incident_id = $2 RETURNING *`,
      [
        id,
        incidentId,
        u.status ?? old.status,
        u.description ?? old.description,
        u.publicIncidentUpdateDate ?? old.public_incident_update_date,
        u.notifySubscribers ?? old.notify_subscribers,
        new Date(),
      ],
    );
    return row;
  }

  async deleteUpdate(incidentId: string, id: string): Promise<boolean> {
    return (
      (await this.db.query('DELETE FROM service_incident_updates WHERE id = $1 AND incident_id = $2 RETURNING id', [id, incidentId]))
        .length > 0
    );
  }
}
