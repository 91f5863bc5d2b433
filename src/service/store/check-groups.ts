// Check groups and their trigger URLs. Members name their group in their config (groupId).

import type { GroupConfig } from '../../domain/check-groups.js';
import type { CheckRow } from './checks.js';
import { creationOrder, type Sql } from './db.js';

export interface GroupRow {
  id: number;
  account_id: string;
  name: string;
  config: GroupConfig;
  created_at: Date;
  updated_at: Date | null;
}

export interface GroupTriggerRow {
  id: number;
  group_id: number;
  account_id: string;
  token: string;
  called_at: Date | null;
  created_at: Date;
}

export class CheckGroupRepository {
  constructor(private readonly db: Sql) {}

  private memberOf(param: string): string {
    return this.db.dialect === 'postgres' ? `(config->>'groupId')::numeric = ${param}` : `json_extract(config, '$.groupId') = ${param}`;
  }

  async insert(accountId: string, config: GroupConfig): Promise<GroupRow> {
    const [row] = await this.db.query<GroupRow>('INSERT INTO check_groups (account_id, name, config) VALUES ($1, $2, $3) RETURNING *', [
      accountId,
      config.name,
      JSON.stringify(config),
    ]);
    return row;
  }

  async update(accountId: string, id: number, config: GroupConfig): Promise<GroupRow | null> {
    const rows = await this.db.query<GroupRow>(
      'UPDATE check_groups SET name = $3, config = $4, updated_at = $5 WHERE id = $1 AND account_id = $2 RETURNING *',
      [id, accountId, config.name, JSON.stringify(config), new Date()],
    );
    return rows[0] ?? null;
  }

  async get(accountId: string, id: number): Promise<GroupRow | null> {
    return (await this.db.query<GroupRow>('SELECT * FROM check_groups WHERE id = $1 AND account_id = $2', [id, accountId]))[0] ?? null;
  }

  /** A group by id alone: for what is not on an account's behalf (public badges). */
  async getAny(id: number): Promise<GroupRow | null> {
    return (await this.db.query<GroupRow>('SELECT * FROM check_groups WHERE id = $1', [id]))[0] ?? null;
  }

  /** Every group of every account: the service keeps them in memory. */
  all(): Promise<GroupRow[]> {
    return this.db.query<GroupRow>('SELECT * FROM check_groups ORDER BY id');
  }

  /** The account's groups, oldest first. */
  list(accountId: string): Promise<GroupRow[]> {
    return this.db.query<GroupRow>('SELECT * FROM check_groups WHERE account_id = $1 ORDER BY id', [accountId]);
  }

  /** The group's checks, oldest first. */
  members(accountId: string, groupId: number): Promise<CheckRow[]> {
    return this.db.query<CheckRow>(
      `SELECT * FROM checks WHERE account_id = $1 AND ${this.memberOf('$2')} ORDER BY ${creationOrder(this.db)}`,
      [accountId, groupId],
    );
  }

  /** Deletes the group with its subscriptions and trigger; refused while checks remain in it. */
  async delete(accountId: string, id: number): Promise<'deleted' | 'missing' | { members: number }> {
    return this.db.tx(async (q) => {
      const found = await q.query('SELECT id FROM check_groups WHERE id = $1 AND account_id = $2', [id, accountId]);
      if (!found.length) return 'missing';
      const [{ n }] = await q.query<{ n: number }>(`SELECT COUNT(*) AS n FROM checks WHERE account_id = $1 AND ${this.memberOf('$2')}`, [
        accountId,
        id,
      ]);
      if (Number(n) > 0) return { members: Number(n) };
      await q.query('DELETE FROM alert_subscriptions WHERE group_id = $1', [id]);
      await q.query('DELETE FROM check_groups WHERE id = $1', [id]);
      return 'deleted';
    });
  }

  async trigger(accountId: string, groupId: number): Promise<GroupTriggerRow | null> {
    const rows = await this.db.query<GroupTriggerRow>('SELECT * FROM check_group_triggers WHERE group_id = $1 AND account_id = $2', [
      groupId,
      accountId,
    ]);
    return rows[0] ?? null;
  }

  async insertTrigger(accountId: string, groupId: number, token: string): Promise<GroupTriggerRow> {
    const [row] = await this.db.query<GroupTriggerRow>(
      'INSERT INTO check_group_triggers (group_id, account_id, token) VALUES ($1, $2, $3) RETURNING *',
      [groupId, accountId, token],
    );
    return row;
  }

  async deleteTrigger(accountId: string, groupId: number): Promise<boolean> {
    const gone = await this.db.query('DELETE FROM check_group_triggers WHERE group_id = $1 AND account_id = $2 RETURNING id', [
      groupId,
      accountId,
    ]);
    return gone.length > 0;
  }

  /** The group a trigger URL names when its token matches; the call is recorded. */
  async calledByToken(groupId: number, token: string): Promise<GroupRow | null> {
    const rows = await this.db.query<GroupTriggerRow>(
      'UPDATE check_group_triggers SET called_at = $3 WHERE group_id = $1 AND token = $2 RETURNING *',
      [groupId, token, new Date()],
    );
    if (!rows.length) return null;
    return this.get(rows[0].account_id, groupId);
  }
}
