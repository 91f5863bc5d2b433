// The alert engine's records: each check's alert state, the alerts raised (check alerts), and
// the notifications to send, an outbox: a notification is written with the result that caused
// it, sent afterwards, and marked once its channel answered.

import { inList, type Sql } from './db.js';
import type { AlertState } from '../../domain/alert-state.js';

export interface CheckAlertRecord {
  id: string;
  accountId: string;
  checkId: string;
  name: string;
  alertType: string;
  checkType: string;
  runLocation: string | null;
  responseTime: number | null;
  error: string | null;
  statusCode: number | null;
  startedAt: Date | null;
}

export interface NotificationRecord {
  id: string;
  accountId: string;
  channelId: number;
  checkId: string;
  checkAlertId: string;
  checkResultId: string | null;
  alertType: string;
  event: Record<string, unknown>;
  nextAttemptAt: number;
}

export interface AlertWrites {
  states: [checkId: string, state: AlertState][];
  alerts: CheckAlertRecord[];
  notifications: NotificationRecord[];
}

export interface DueNotification {
  id: string;
  account_id: string;
  channel_id: number;
  check_id: string;
  alert_type: string;
  event: Record<string, unknown>;
  attempts: number;
  type: string;
  config: Record<string, unknown>;
}

export interface NotificationRow {
  id: string;
  account_id: string;
  channel_id: number;
  check_id: string;
  check_alert_id: string;
  check_result_id: string | null;
  alert_type: string;
  event: Record<string, unknown>;
  status: string;
  attempts: number;
  notification_result: Record<string, unknown> | null;
  created_at: Date;
  type: string | null;
  config: Record<string, unknown> | null;
  check_type: string | null;
}

export interface CheckAlertRow {
  id: string;
  check_id: string;
  name: string;
  alert_type: string;
  check_type: string;
  run_location: string | null;
  response_time: number | null;
  error: string | null;
  status_code: number | null;
  started_at: Date | null;
  created_at: Date;
}

export class AlertRepository {
  constructor(private readonly db: Sql) {}

  async states(): Promise<Map<string, AlertState>> {
    const rows = await this.db.query<{ check_id: string; state: AlertState }>('SELECT check_id, state FROM alert_states');
    return new Map(rows.map((r) => [r.check_id, r.state]));
  }

  /** Writes what the engine decided for a batch of results; run inside the results' transaction. */
  async write(w: AlertWrites): Promise<void> {
    for (const [checkId, state] of w.states)
      await this.db.query(
        // A check deleted meanwhile has no state to keep.
        `INSERT INTO alert_states (check_id, state) SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM checks WHERE id = $1)
         ON CONFLICT (check_id) DO UPDATE SET state = EXCLUDED.state`,
        [checkId, JSON.stringify(state)],
      );
    for (const a of w.alerts)
      await this.db.query(
        `INSERT INTO check_alerts (id, account_id, check_id, name, alert_type, check_type, run_location, response_time, error,
           status_code, started_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [a.id, a.accountId, a.checkId, a.name, a.alertType, a.checkType, a.runLocation, a.responseTime, a.error, a.statusCode, a.startedAt],
      );
    for (const n of w.notifications)
      await this.db.query(
        `INSERT INTO alert_notifications (id, account_id, channel_id, check_id, check_alert_id, check_result_id, alert_type, event,
           status, next_attempt_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'IN_PROGRESS', $9)`,
        [n.id, n.accountId, n.channelId, n.checkId, n.checkAlertId, n.checkResultId, n.alertType, JSON.stringify(n.event), n.nextAttemptAt],
      );
  }

  /** Notifications due by `now`, oldest first, with their channel as it is now. */
  async due(now: number, limit: number): Promise<DueNotification[]> {
    return this.db.query<DueNotification>(
      `SELECT n.id, n.account_id, n.channel_id, n.check_id, n.alert_type, n.event, n.attempts, c.type, c.config
       FROM alert_notifications n JOIN alert_channels c ON c.id = n.channel_id
       WHERE n.status = 'IN_PROGRESS' AND n.next_attempt_at <= $1 ORDER BY n.next_attempt_at LIMIT $2`,
      [now, limit],
    );
  }

  /** When the next pending notification falls due, if any. */
  async nextDue(): Promise<number | null> {
    const [row] = await this.db.query<{ at: number | null }>(
      `SELECT MIN(next_attempt_at) AS at FROM alert_notifications WHERE status = 'IN_PROGRESS'`,
    );
    return row?.at === null || row?.at === undefined ? null : Number(row.at);
  }

  /** A notification whose channel is gone: nothing will ever send it. */
  async orphans(): Promise<string[]> {
    const rows = await this.db.query<{ id: string }>(
      `SELECT n.id FROM alert_notifications n LEFT JOIN alert_channels c ON c.id = n.channel_id WHERE n.status = 'IN_PROGRESS' AND c.id IS NULL`,
    );
    return rows.map((r) => r.id);
  }

  /** Moves the next attempt of these notifications to `until`: they are being sent. */
  async lease(ids: string[], until: number): Promise<void> {
    if (!ids.length) return;
    await this.db.query(`UPDATE alert_notifications SET next_attempt_at = $2 WHERE id ${inList(this.db, '$1')}`, [ids, until]);
  }

  /** Records an attempt: SUCCESS or FAILURE for good, or IN_PROGRESS again at `nextAttemptAt`. */
  async attempted(
    id: string,
    status: 'SUCCESS' | 'FAILURE' | 'IN_PROGRESS',
    attempts: number,
    result: Record<string, unknown>,
    nextAttemptAt: number,
  ): Promise<void> {
    await this.db.query(
      'UPDATE alert_notifications SET status = $2, attempts = $3, notification_result = $4, next_attempt_at = $5 WHERE id = $1',
      [id, status, attempts, JSON.stringify(result), nextAttemptAt],
    );
  }

  async notifications(
    accountId: string,
    f: { from: Date; to: Date; channelId?: number; hasFailures?: boolean },
    limit: number,
    offset: number,
  ): Promise<NotificationRow[]> {
    const q = windowed('n.', accountId, f, [['channel_id', f.channelId]], limit, offset);
    if (f.hasFailures !== undefined) q.where.push(f.hasFailures ? `n.status = 'FAILURE'` : `n.status <> 'FAILURE'`);
    return this.db.query<NotificationRow>(
      `SELECT n.*, c.type, c.config, a.check_type FROM alert_notifications n
       LEFT JOIN alert_channels c ON c.id = n.channel_id LEFT JOIN check_alerts a ON a.id = n.check_alert_id
       WHERE ${q.where.join(' AND ')} ORDER BY n.created_at DESC, n.id ${q.page}`,
      q.params,
    );
  }

  async checkAlerts(
    accountId: string,
    f: { from: Date; to: Date; checkId?: string },
    limit: number,
    offset: number,
  ): Promise<CheckAlertRow[]> {
    const q = windowed('', accountId, f, [['check_id', f.checkId]], limit, offset);
    return this.db.query<CheckAlertRow>(
      `SELECT * FROM check_alerts WHERE ${q.where.join(' AND ')} ORDER BY created_at DESC, id ${q.page}`,
      q.params,
    );
  }
}

/**
 * An account's rows created between two times, with equality filters where a value is given,
 * one page of them: the conditions, the LIMIT/OFFSET clause, and their parameters.
 */
function windowed(
  prefix: string,
  accountId: string,
  f: { from: Date; to: Date },
  equal: [string, unknown][],
  limit: number,
  offset: number,
) {
  const where = [`${prefix}account_id = $1`, `${prefix}created_at >= $2`, `${prefix}created_at <= $3`];
  const params: unknown[] = [accountId, f.from, f.to];
  for (const [column, value] of equal) {
    if (value === undefined) continue;
    params.push(value);
    where.push(`${prefix}${column} = $${params.length}`);
  }
  params.push(limit, offset);
  return { where, page: `LIMIT $${params.length - 1} OFFSET $${params.length}`, params };
}
