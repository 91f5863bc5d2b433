// Heartbeat checks' ping tokens and the time each is being watched from.

import type { CheckRow } from './checks.js';
import type { Queryable } from './db.js';

/** Activated heartbeat checks, with when their current period started. */
export async function watchedHeartbeats(db: Queryable): Promise<(CheckRow & { since: number })[]> {
  return db.query(
    `SELECT c.*, h.since FROM checks c JOIN heartbeats h ON h.check_id = c.id WHERE c.activated AND c.check_type = 'HEARTBEAT'`,
  );
}

export async function pingTokenTaken(db: Queryable, token: string, exceptCheckId?: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM heartbeats WHERE ping_token = $1 AND check_id <> $2', [token, exceptCheckId ?? '']);
  return rows.length > 0;
}

export async function upsertHeartbeat(db: Queryable, checkId: string, token: string, since: number): Promise<void> {
  await db.query(
    `INSERT INTO heartbeats (check_id, ping_token, since) VALUES ($1, $2, $3)
     ON CONFLICT (check_id) DO UPDATE SET ping_token = EXCLUDED.ping_token`,
    [checkId, token, since],
  );
}

export async function setHeartbeatSince(db: Queryable, checkId: string, since: number): Promise<void> {
  await db.query('UPDATE heartbeats SET since = $2 WHERE check_id = $1', [checkId, since]);
}

export async function recordPing(db: Queryable, checkId: string, at: number): Promise<void> {
  await db.query('UPDATE heartbeats SET last_ping_at = $2, since = $2 WHERE check_id = $1', [checkId, at]);
}

export async function checkByPingToken(db: Queryable, token: string): Promise<CheckRow | null> {
  return (
    (await db.query<CheckRow>('SELECT c.* FROM heartbeats h JOIN checks c ON c.id = h.check_id WHERE h.ping_token = $1', [token]))[0] ??
    null
  );
}
