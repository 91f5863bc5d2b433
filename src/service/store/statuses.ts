// Check statuses: each check's latest outcome, folded from the results that change it.

import type { Sql } from './db.js';
import type { ResultFolds } from './result-folds.js';

export interface StatusRow {
  check_id: string;
  name: string;
  has_failures: boolean;
  has_errors: boolean;
  is_degraded: boolean;
  longest_run: number | null;
  shortest_run: number | null;
  last_run_location: string | null;
  last_check_run_id: string | null;
  created_at: Date;
  updated_at: Date | null;
}

export class StatusRepository {
  /** folds: the embedded store's deferred statuses, settled before each read (null on PostgreSQL). */
  constructor(
    private readonly db: Sql,
    private readonly folds: ResultFolds | null = null,
  ) {}

  async list(accountId: string): Promise<StatusRow[]> {
    await this.folds?.settle(this.db);
    return this.db.query<StatusRow>('SELECT * FROM check_statuses WHERE account_id = $1 ORDER BY check_id', [accountId]);
  }

  async get(accountId: string, checkId: string): Promise<StatusRow | null> {
    await this.folds?.settle(this.db);
    const rows = await this.db.query<StatusRow>('SELECT * FROM check_statuses WHERE check_id = $1 AND account_id = $2', [
      checkId,
      accountId,
    ]);
    return rows[0] ?? null;
  }
}
