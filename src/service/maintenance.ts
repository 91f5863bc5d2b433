// Maintenance windows as the running service uses them: kept in memory, and the windows under
// way worked out once per second per account, so asking whether a scheduled run is paused (or
// an alert silenced) costs a lookup and a scan of the few windows under way.

import { pauses, silences, spanAround, underWay, type MaintenanceWindow, type MatchedCheck, type Span } from '../domain/maintenance.js';
import type { MaintenanceWindowRepository, WindowRow } from './store/maintenance-windows.js';

export class Maintenance {
  private byAccount = new Map<string, WindowRow[]>();
  /** The windows under way, by second and account (the scheduler asks a second ahead of now). */
  private active = new Map<number, Map<string, MaintenanceWindow[]>>();
  /** Each window's occurrences near now: the calendar is consulted again only past them. */
  private spans = new WeakMap<WindowRow, Span>();

  constructor(private windows: Pick<MaintenanceWindowRepository, 'all' | 'list'>) {}

  async load(): Promise<void> {
    this.byAccount.clear();
    for (const row of await this.windows.all()) this.byAccount.set(row.account_id, [...(this.byAccount.get(row.account_id) ?? []), row]);
    this.active.clear();
  }

  /** After a window of the account was written or deleted. */
  async refresh(accountId: string): Promise<void> {
    this.byAccount.set(accountId, await this.windows.list(accountId));
    this.active.clear();
  }

  /** The account's windows with an occurrence under way at t. */
  activeAt(accountId: string, t: number): MaintenanceWindow[] {
    const second = Math.floor(t / 1000);
    let accounts = this.active.get(second);
    if (!accounts) {
      for (const s of this.active.keys()) if (Math.abs(s - second) > 5) this.active.delete(s);
      accounts = new Map();
      this.active.set(second, accounts);
    }
    let list = accounts.get(accountId);
    if (!list) {
      const t0 = second * 1000;
      list = [];
      for (const row of this.byAccount.get(accountId) ?? []) {
        let span = this.spans.get(row);
        if (!span || t0 < span.from || t0 >= span.until) this.spans.set(row, (span = spanAround(row.config, t0)));
        if (underWay(span, t0)) list.push(row.config);
      }
      accounts.set(accountId, list);
    }
    return list;
  }

  pauses(accountId: string, t: number, check: MatchedCheck): boolean {
    if (!this.byAccount.has(accountId)) return false;
    const active = this.activeAt(accountId, t);
    return active.length > 0 && pauses(active, check);
  }

  silences(accountId: string, t: number, check: MatchedCheck): boolean {
    if (!this.byAccount.has(accountId)) return false;
    const active = this.activeAt(accountId, t);
    return active.length > 0 && silences(active, check);
  }
}
