// Job rows (due runs waiting for, or leased by, an agent), runs dropped unclaimed, and each
// check's next due time. The job queue keeps the live state in memory; these rows are what a
// restart reloads it from.

import type { CheckRow } from './checks.js';
import type { Db, Queryable } from './db.js';

export interface JobRecord {
  id: string;
  accountId: string;
  checkId: string;
  location: string;
  dueAt: number;
  queueKey: string;
  leasedBy: string | null;
  /** Set when leased. */
  leaseExpiresAt: number | null;
}

export type StoredJob = CheckRow & {
  job_id: string;
  location: string;
  due_at: number;
  queue_key: string;
  leased_by: string | null;
  lease_expires_at: number | null;
};

const INSERT_JOBS =
  'INSERT INTO jobs (id, account_id, check_id, location, due_at, queue_key, leased_by, lease_expires_at) ' +
  'SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::text[], $7::text[], $8::float8[]) ON CONFLICT (id) DO NOTHING';

/** The eight column arrays INSERT_JOBS takes, in its order. */
function jobColumns(jobs: JobRecord[]): unknown[] {
  return [
    jobs.map((j) => j.id),
    jobs.map((j) => j.accountId),
    jobs.map((j) => j.checkId),
    jobs.map((j) => j.location),
    jobs.map((j) => j.dueAt),
    jobs.map((j) => j.queueKey),
    jobs.map((j) => j.leasedBy),
    jobs.map((j) => j.leaseExpiresAt),
  ];
}

/** Every stored job with its check as it is now, oldest due first. */
export async function loadJobs(db: Queryable): Promise<StoredJob[]> {
  return db.query<StoredJob>(
    `SELECT c.*, j.id AS job_id, j.location, j.due_at, j.queue_key, j.leased_by, j.lease_expires_at
     FROM jobs j JOIN checks c ON c.id = j.check_id ORDER BY j.due_at`,
  );
}

/** Stores jobs; one already stored under the same id is left as it is. */
export async function insertJobs(db: Queryable, jobs: JobRecord[]): Promise<void> {
  await db.query(INSERT_JOBS, jobColumns(jobs));
}

export async function deleteJobs(db: Queryable, ids: string[]): Promise<void> {
  await db.query('DELETE FROM jobs WHERE id = ANY($1::text[])', [ids]);
}

/** Who holds each job and until when (agent null: back in the queue). */
export async function recordLeases(db: Queryable, leases: { id: string; agentId: string | null; until: number }[]): Promise<void> {
  await db.query(
    `UPDATE jobs SET leased_by = t.agent, lease_expires_at = t.until
     FROM unnest($1::text[], $2::text[], $3::float8[]) AS t(id, agent, until) WHERE jobs.id = t.id`,
    [leases.map((l) => l.id), leases.map((l) => l.agentId), leases.map((l) => l.until)],
  );
}

/** Removes jobs no agent picked up in time and records them as dropped, in one transaction. */
export async function dropJobs(
  db: Db,
  jobs: { id: string; checkId: string; location: string; dueAt: number }[],
  reason: string,
): Promise<void> {
  await db.tx(async (tx) => {
    await tx.query('DELETE FROM jobs WHERE id = ANY($1::text[])', [jobs.map((j) => j.id)]);
    await tx.query(
      `INSERT INTO dropped_runs (id, check_id, location, due_at, reason)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::text[]) ON CONFLICT (id) DO NOTHING`,
      [jobs.map((j) => j.id), jobs.map((j) => j.checkId), jobs.map((j) => j.location), jobs.map((j) => j.dueAt), jobs.map(() => reason)],
    );
  });
}

/** Activated checks the scheduler dispatches (heartbeats are passive), with their next due time. */
export async function scheduledChecks(db: Queryable): Promise<(CheckRow & { next_due_at: number | null })[]> {
  return db.query(
    `SELECT c.*, s.next_due_at FROM checks c LEFT JOIN check_schedule s ON s.check_id = c.id WHERE c.activated AND c.check_type <> 'HEARTBEAT'`,
  );
}

/**
 * Stores due runs and advances their checks' next due times in one statement: atomic, and one
 * round trip. Checks deleted meanwhile get no schedule row.
 */
export async function queueRuns(db: Queryable, jobs: JobRecord[], nextDue: [checkId: string, at: number][]): Promise<void> {
  await db.query(
    `WITH queued AS (${INSERT_JOBS} RETURNING 1)
     INSERT INTO check_schedule (check_id, next_due_at)
     SELECT t.id, t.next FROM unnest($9::text[], $10::float8[]) AS t(id, next) JOIN checks c ON c.id = t.id
     ON CONFLICT (check_id) DO UPDATE SET next_due_at = EXCLUDED.next_due_at`,
    [...jobColumns(jobs), nextDue.map(([id]) => id), nextDue.map(([, next]) => next)],
  );
}
