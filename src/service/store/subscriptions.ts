// Status-page subscribers (email addresses, PENDING until they confirm) and the emails to them:
// an outbox, written in the transaction of the incident update that causes them.

import { randomBytes } from 'node:crypto';
import { inList, type Sql } from './db.js';
import { newId } from '../secrets.js';

export interface SubscriptionRow {
  id: string;
  account_id: string;
  status_page_id: string;
  type: string;
  address: string;
  status: 'PENDING' | 'VERIFIED';
  /** Lets the address's owner confirm or unsubscribe from a link; opens nothing else. */
  token: string;
  created_at: Date;
  updated_at: Date | null;
}

/** What an email says; links are paths, made absolute when it is sent. */
export type SubscriberMessage =
  | { kind: 'confirm'; pageName: string }
  | {
      kind: 'incident';
      pageName: string;
      pageUrl: string;
      incident: string;
      severity: string;
      status: string;
      description: string;
      services: string[];
    };

export interface DueEmail {
  id: string;
  attempts: number;
  subscription_id: string;
  address: string;
  token: string;
  message: SubscriberMessage;
}

const COLUMNS = 'id, account_id, status_page_id, type, address, status, token, created_at, updated_at';

export class SubscriptionRepository {
  constructor(private readonly db: Sql) {}

  list(statusPageId: string): Promise<SubscriptionRow[]> {
    return this.db.query<SubscriptionRow>(
      `SELECT ${COLUMNS} FROM status_page_subscriptions WHERE status_page_id = $1 ORDER BY created_at, id`,
      [statusPageId],
    );
  }

  /**
   * Subscribes the addresses not subscribed yet (the others are skipped), VERIFIED at once or
   * PENDING with a confirmation email, all in one transaction.
   */
  async subscribe(
    accountId: string,
    page: { id: string; name: string },
    addresses: string[],
    verified: boolean,
  ): Promise<{ created: SubscriptionRow[]; skipped: string[] }> {
    return this.db.tx(async (q) => {
      const created: SubscriptionRow[] = [];
      const skipped: string[] = [];
      for (const address of addresses) {
        const [row] = await q.query<SubscriptionRow>(
          `INSERT INTO status_page_subscriptions (id, account_id, status_page_id, type, address, status, token, created_at)
           VALUES ($1, $2, $3, 'EMAIL', $4, $5, $6, $7) ON CONFLICT (status_page_id, address) DO NOTHING RETURNING ${COLUMNS}`,
          [newId(), accountId, page.id, address, verified ? 'VERIFIED' : 'PENDING', randomBytes(24).toString('hex'), new Date()],
        );
        if (!row) {
          skipped.push(address);
          continue;
        }
        created.push(row);
        if (!verified) await enqueue(q, row.id, { kind: 'confirm', pageName: page.name });
      }
      return { created, skipped };
    });
  }

  async delete(statusPageId: string, id: string): Promise<boolean> {
    const rows = await this.db.query('DELETE FROM status_page_subscriptions WHERE id = $1 AND status_page_id = $2 RETURNING id', [
      id,
      statusPageId,
    ]);
    return rows.length > 0;
  }

  /** The subscription a link's token belongs to, if it does. */
  async byToken(id: string, token: string): Promise<SubscriptionRow | null> {
    const [row] = await this.db.query<SubscriptionRow>(`SELECT ${COLUMNS} FROM status_page_subscriptions WHERE id = $1`, [id]);
    return row?.token === token ? row : null;
  }

  async verify(id: string): Promise<void> {
    await this.db.query(`UPDATE status_page_subscriptions SET status = 'VERIFIED', updated_at = $2 WHERE id = $1`, [id, new Date()]);
  }

  /** Emails every VERIFIED subscriber of these pages (each address once per page) about an update. */
  async announce(
    pages: { id: string; name: string; url: string }[],
    message: Omit<SubscriberMessage & { kind: 'incident' }, 'kind' | 'pageName' | 'pageUrl'>,
  ) {
    if (!pages.length) return;
    const subscribers = await this.db.query<{ id: string; status_page_id: string }>(
      `SELECT id, status_page_id FROM status_page_subscriptions WHERE status = 'VERIFIED' AND status_page_id ${inList(this.db, '$1')}`,
      [pages.map((p) => p.id)],
    );
    for (const s of subscribers) {
      const page = pages.find((p) => p.id === s.status_page_id)!;
      await enqueue(this.db, s.id, { ...message, kind: 'incident', pageName: page.name, pageUrl: page.url });
    }
  }

  // The outbox, as the notifier reads it.

  due(now: number, limit: number): Promise<DueEmail[]> {
    return this.db.query<DueEmail>(
      `SELECT e.id, e.attempts, e.subscription_id, e.message, s.address, s.token
       FROM subscriber_emails e JOIN status_page_subscriptions s ON s.id = e.subscription_id
       WHERE e.status = 'IN_PROGRESS' AND e.next_attempt_at <= $1 ORDER BY e.next_attempt_at LIMIT $2`,
      [now, limit],
    );
  }

  async nextDue(): Promise<number | null> {
    const [row] = await this.db.query<{ at: number | null }>(
      `SELECT MIN(next_attempt_at) AS at FROM subscriber_emails WHERE status = 'IN_PROGRESS'`,
    );
    return row?.at === null || row?.at === undefined ? null : Number(row.at);
  }

  async lease(ids: string[], until: number): Promise<void> {
    if (!ids.length) return;
    await this.db.query(`UPDATE subscriber_emails SET next_attempt_at = $2 WHERE id ${inList(this.db, '$1')}`, [ids, until]);
  }

  async attempted(id: string, status: string, attempts: number, result: Record<string, unknown>, nextAttemptAt: number): Promise<void> {
    await this.db.query('UPDATE subscriber_emails SET status = $2, attempts = $3, result = $4, next_attempt_at = $5 WHERE id = $1', [
      id,
      status,
      attempts,
      JSON.stringify(result),
      nextAttemptAt,
    ]);
  }
}

async function enqueue(db: Sql, subscriptionId: string, message: SubscriberMessage): Promise<void> {
  await db.query(
    `INSERT INTO subscriber_emails (id, subscription_id, message, status, next_attempt_at, created_at) VALUES ($1, $2, $3, 'IN_PROGRESS', $4, $5)`,
    [newId(), subscriptionId, JSON.stringify(message), Date.now(), new Date()],
  );
}
