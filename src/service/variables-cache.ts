// Account variables as agents need them, kept in memory: every leased API or browser job reads
// them, and they change only through the variables API.

import type { VariableRepository } from './store/variables.js';
import type { Variable } from '../domain/run.js';

export class VariablesCache {
  private byAccount = new Map<string, Variable[]>();

  constructor(private variables: VariableRepository) {}

  async load(): Promise<void> {
    const rows = await this.variables.all();
    this.byAccount.clear();
    for (const r of rows) {
      const list = this.byAccount.get(r.account_id) ?? [];
      list.push({ key: r.key, value: r.value, secret: r.secret });
      this.byAccount.set(r.account_id, list);
    }
  }

  async refresh(accountId: string): Promise<void> {
    const rows = await this.variables.list(accountId);
    this.byAccount.set(
      accountId,
      rows.map((r) => ({ key: r.key, value: r.value, secret: r.secret })),
    );
  }

  of(accountId: string): Variable[] {
    return this.byAccount.get(accountId) ?? [];
  }
}
