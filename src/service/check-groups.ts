// Check groups as the running service sees them: kept in memory (every scheduled run, job and
// alert decision of a member reads its group), and the effective check built from them.

import { effectiveConfig, groupAlerts } from '../domain/check-groups.js';
import type { Repositories } from './store/index.js';
import type { GroupRow } from './store/check-groups.js';
import type { CheckRow } from './store/checks.js';

interface Known {
  row: GroupRow;
  /** Whether the group has alert channel subscriptions of its own. */
  subscribed: boolean;
}

export class CheckGroups {
  private byId = new Map<number, Known>();

  constructor(private store: Pick<Repositories, 'checkGroups' | 'alertChannels'>) {}

  async load(): Promise<void> {
    const rows = await this.store.checkGroups.all();
    const subscribed = new Set((await this.store.alertChannels.ofGroups(rows.map((r) => r.id))).map((s) => Number(s.group_id)));
    this.byId.clear();
    for (const row of rows) this.byId.set(Number(row.id), { row, subscribed: subscribed.has(Number(row.id)) });
  }

  /** After a group was written: its row and subscriptions as stored now. */
  async refresh(accountId: string, id: number): Promise<void> {
    const row = await this.store.checkGroups.get(accountId, id);
    if (!row) return void this.byId.delete(id);
    const subscribed = (await this.store.alertChannels.ofGroups([id])).length > 0;
    this.byId.set(id, { row, subscribed });
  }

  forget(id: number): void {
    this.byId.delete(id);
  }

  get(accountId: string, id: number): GroupRow | null {
    const g = this.byId.get(id);
    return g && g.row.account_id === accountId ? g.row : null;
  }

  private groupOf(row: CheckRow): Known | null {
    const id = row.config.groupId;
    if (id === null || id === undefined) return null;
    const g = this.byId.get(Number(id));
    return g && g.row.account_id === row.account_id ? g : null;
  }

  /** The check as it runs: its group's settings applied (the check itself when in none). */
  effective(row: CheckRow): CheckRow {
    const g = this.groupOf(row);
    if (!g) return row;
    const config = effectiveConfig(row.config, row.check_type, g.row.config, g.subscribed);
    return { ...row, activated: config.activated, config };
  }

  /** The tags of a check's group (maintenance windows match them too). */
  tagsOf(row: CheckRow): string[] {
    return this.groupOf(row)?.row.config.tags ?? [];
  }

  /** The group whose alert channels a check's alerts go to; null: the check's own channels. */
  alertingGroup(row: CheckRow): number | null {
    const g = this.groupOf(row);
    return g && groupAlerts(g.row.config, g.subscribed) ? Number(g.row.id) : null;
  }
}
