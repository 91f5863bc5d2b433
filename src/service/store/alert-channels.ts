// Alert channels (where notifications go) and subscriptions (which checks and groups send to
// which channels). Subscriptions are the one source of a check's `alertChannelSubscriptions`,
// its `alertChannels` and a channel's `subscriptions`.

import { inList, type Sql } from './db.js';

export interface ChannelFields {
  type: string;
  config: Record<string, unknown>;
  sendRecovery: boolean;
  sendFailure: boolean;
  sendDegraded: boolean;
  sslExpiry: boolean;
  sslExpiryThreshold: number;
  autoSubscribe: boolean;
}

export interface ChannelRow {
  id: number;
  account_id: string;
  type: string;
  config: Record<string, unknown>;
  send_recovery: boolean;
  send_failure: boolean;
  send_degraded: boolean;
  ssl_expiry: boolean;
  ssl_expiry_threshold: number;
  auto_subscribe: boolean;
  created_at: Date;
  updated_at: Date | null;
}

export interface SubscriptionRow {
  id: number;
  channel_id: number;
  check_id: string | null;
  group_id: number | null;
  activated: boolean;
}

export type SubscriptionWithChannel = SubscriptionRow & {
  type: string;
  config: Record<string, unknown>;
  send_failure: boolean;
  send_recovery: boolean;
  send_degraded: boolean;
  ssl_expiry: boolean;
  ssl_expiry_threshold: number;
};

/** A subscription as the check and group bodies spell it. */
export interface Subscription {
  alertChannelId: number;
  activated: boolean;
}

const values = (f: ChannelFields) => [
  f.type,
  JSON.stringify(f.config),
  f.sendRecovery,
  f.sendFailure,
  f.sendDegraded,
  f.sslExpiry,
  f.sslExpiryThreshold,
  f.autoSubscribe,
];

export class AlertChannelRepository {
  constructor(private readonly db: Sql) {}

  async insert(accountId: string, f: ChannelFields): Promise<ChannelRow> {
    const [row] = await this.db.query<ChannelRow>(
      `INSERT INTO alert_channels (account_id, type, config, send_recovery, send_failure, send_degraded, ssl_expiry,
         ssl_expiry_threshold, auto_subscribe) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
      [accountId, ...values(f)],
    );
    return row;
  }

  async update(accountId: string, id: number, f: ChannelFields): Promise<ChannelRow | null> {
    const rows = await this.db.query<ChannelRow>(
      `UPDATE alert_channels SET type = $3, config = $4, send_recovery = $5, send_failure = $6, send_degraded = $7,
         ssl_expiry = $8, ssl_expiry_threshold = $9, auto_subscribe = $10, updated_at = $11
       WHERE id = $1 AND account_id = $2 RETURNING *`,
      [id, accountId, ...values(f), new Date()],
    );
    return rows[0] ?? null;
  }

  async get(accountId: string, id: number): Promise<ChannelRow | null> {
    return (await this.db.query<ChannelRow>('SELECT * FROM alert_channels WHERE id = $1 AND account_id = $2', [id, accountId]))[0] ?? null;
  }

  async list(accountId: string, limit: number, offset: number): Promise<{ rows: ChannelRow[]; total: number }> {
    const rows = await this.db.query<ChannelRow>('SELECT * FROM alert_channels WHERE account_id = $1 ORDER BY id LIMIT $2 OFFSET $3', [
      accountId,
      limit,
      offset,
    ]);
    const [{ n }] = await this.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM alert_channels WHERE account_id = $1', [accountId]);
    return { rows, total: Number(n) };
  }

  /** The ids among `ids` that are channels of the account. */
  async existing(accountId: string, ids: number[]): Promise<Set<number>> {
    if (!ids.length) return new Set();
    const rows = await this.db.query<{ id: number }>(
      `SELECT id FROM alert_channels WHERE account_id = $1 AND CAST(id AS text) ${inList(this.db, '$2')}`,
      [accountId, ids.map(String)],
    );
    return new Set(rows.map((r) => Number(r.id)));
  }

  async allIds(accountId: string): Promise<number[]> {
    return (await this.db.query<{ id: number }>('SELECT id FROM alert_channels WHERE account_id = $1 ORDER BY id', [accountId])).map((r) =>
      Number(r.id),
    );
  }

  async delete(accountId: string, id: number): Promise<boolean> {
    return (await this.db.query('DELETE FROM alert_channels WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId])).length > 0;
  }

  async subscriptionsOfChannels(ids: number[]): Promise<SubscriptionRow[]> {
    if (!ids.length) return [];
    return this.db.query<SubscriptionRow>(
      `SELECT * FROM alert_subscriptions WHERE CAST(channel_id AS text) ${inList(this.db, '$1')} ORDER BY id`,
      [ids.map(String)],
    );
  }

  /** The subscriptions of these checks, each with its channel. */
  ofChecks(checkIds: string[]): Promise<SubscriptionWithChannel[]> {
    return this.ofTargets('check_id', checkIds);
  }

  /** The subscriptions of these groups, each with its channel. */
  ofGroups(groupIds: number[]): Promise<SubscriptionWithChannel[]> {
    return this.ofTargets('group_id', groupIds.map(String));
  }

  private async ofTargets(column: 'check_id' | 'group_id', ids: string[]): Promise<SubscriptionWithChannel[]> {
    if (!ids.length) return [];
    return this.db.query(
      `SELECT s.*, c.type, c.config, c.send_failure, c.send_recovery, c.send_degraded, c.ssl_expiry, c.ssl_expiry_threshold
       FROM alert_subscriptions s JOIN alert_channels c ON c.id = s.channel_id
       WHERE ${column === 'check_id' ? 's.check_id' : 'CAST(s.group_id AS text)'} ${inList(this.db, '$1')} ORDER BY s.id`,
      [ids],
    );
  }

  /** Makes `subs` the group's subscriptions, all of them. */
  async setForGroup(groupId: number, subs: Subscription[]): Promise<void> {
    await this.db.query('DELETE FROM alert_subscriptions WHERE group_id = $1', [groupId]);
    for (const s of subs) await this.subscribe(s.alertChannelId, { checkId: null, groupId, activated: s.activated });
  }

  /** Makes `subs` the check's subscriptions, all of them. */
  async setForCheck(checkId: string, subs: Subscription[]): Promise<void> {
    await this.db.query('DELETE FROM alert_subscriptions WHERE check_id = $1', [checkId]);
    for (const s of subs)
      await this.db.query('INSERT INTO alert_subscriptions (channel_id, check_id, activated) VALUES ($1, $2, $3)', [
        s.alertChannelId,
        checkId,
        s.activated,
      ]);
  }

  /** Makes `subs` the channel's subscriptions, all of them. */
  async setForChannel(channelId: number, subs: { checkId: string | null; groupId: number | null; activated: boolean }[]): Promise<void> {
    await this.db.query('DELETE FROM alert_subscriptions WHERE channel_id = $1', [channelId]);
    for (const s of subs) await this.subscribe(channelId, s);
  }

  /** Subscribes (or changes the subscription of) one check or group. */
  async subscribe(channelId: number, s: { checkId: string | null; groupId: number | null; activated: boolean }): Promise<SubscriptionRow> {
    const target = s.checkId !== null ? 'check_id' : 'group_id';
    const [row] = await this.db.query<SubscriptionRow>(
      `INSERT INTO alert_subscriptions (channel_id, check_id, group_id, activated) VALUES ($1, $2, $3, $4)
       ON CONFLICT (channel_id, ${target}) WHERE ${target} IS NOT NULL DO UPDATE SET activated = EXCLUDED.activated RETURNING *`,
      [channelId, s.checkId, s.groupId, s.activated],
    );
    return row;
  }
}
