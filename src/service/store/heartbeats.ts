// Heartbeat checks' ping tokens and the time each is being watched from.

import type { CheckRow } from './checks.js';
import type { Sql } from './db.js';

export class HeartbeatRepository {
  constructor(private readonly db: Sql) {}

  /** Activated heartbeat checks, with when their current period started. */
  async watched(): Promise<(CheckRow & { since: number })[]> {
    return this.db.query(
      `SELECT c.*, h.since FROM checks c JOIN heartbeats h ON h.check_id = c.id WHERE c.activated AND c.check_type = 'HEARTBEAT'`,
    );
  }

  async tokenTaken(token: string, exceptCheckId?: string): Promise<boolean> {
    const rows = await this.db.query('SELECT 1 FROM heartbeats WHERE ping_token = $1 AND check_id <> $2', [token, exceptCheckId ?? '']);
    return rows.length > 0;
  }

  async upsert(checkId: string, token: string, since: number): Promise<void> {
    await this.db.query(
      `INSERT INTO heartbeats (check_id, ping_token, since) VALUES ($1, $2, $3)
       ON CONFLICT (check_id) DO UPDATE SET ping_token = EXCLUDED.ping_token`,
      [checkId, token, since],
    );
  }

  async setSince(checkId: string, since: number): Promise<void> {
    await this.db.query('UPDATE heartbeats SET since = $2 WHERE check_id = $1', [checkId, since]);
  }

  async recordPing(checkId: string, at: number): Promise<void> {
    await this.db.query('UPDATE heartbeats SET last_ping_at = $2, since = $2 WHERE check_id = $1', [checkId, at]);
  }

  async checkByToken(token: string): Promise<CheckRow | null> {
    const rows = await this.db.query<CheckRow>('SELECT c.* FROM heartbeats h JOIN checks c ON c.id = h.check_id WHERE h.ping_token = $1', [
      token,
    ]);
    return rows[0] ?? null;
  }
}
