// Job rows (due runs waiting for, or leased by, an agent), runs dropped unclaimed, and how far
// the scheduler has dispatched. The job queue keeps the live state in memory; these rows are
// what a restart reloads it from.

import type { CheckRow } from './checks.js';
import type { RunSequence } from '../../domain/run.js';
import { columns, inList, type Sql } from './db.js';

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
  /** Set for a retry. */
  sequence?: RunSequence | null;
}

export type StoredJob = CheckRow & {
  job_id: string;
  location: string;
  due_at: number;
  queue_key: string;
  leased_by: string | null;
  lease_expires_at: number | null;
  sequence: RunSequence | null;
};

const JOB_ROW = (j: JobRecord) => [
  j.id,
  j.accountId,
  j.checkId,
  j.location,
  j.dueAt,
  j.queueKey,
  j.leasedBy,
  j.leaseExpiresAt,
  j.sequence ? JSON.stringify(j.sequence) : null,
];
const INSERT_JOB =
  'INSERT INTO jobs (id, account_id, check_id, location, due_at, queue_key, leased_by, lease_expires_at, sequence) ' +
  'VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING';
// PostgreSQL pays a round trip per statement, so batches go as column arrays in one; SQLite
// runs a prepared statement per row in one transaction, which costs microseconds.
const INSERT_JOBS =
  'INSERT INTO jobs (id, account_id, check_id, location, due_at, queue_key, leased_by, lease_expires_at, sequence) ' +
  'SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::text[], $7::text[], $8::float8[], $9::jsonb[]) ON CONFLICT (id) DO NOTHING';

/** Runs one statement per row, in one transaction. */
async function eachRow(db: Sql, sql: string, rows: unknown[][]): Promise<void> {
  await db.tx(async (q) => {
    for (const r of rows) await q.query(sql, r);
  });
}

export class JobRepository {
  constructor(private readonly db: Sql) {}

  /** Every stored job with its check as it is now, oldest due first. */
  async load(): Promise<StoredJob[]> {
    return this.db.query<StoredJob>(
      `SELECT c.*, j.id AS job_id, j.location, j.due_at, j.queue_key, j.leased_by, j.lease_expires_at, j.sequence
       FROM jobs j JOIN checks c ON c.id = j.check_id ORDER BY j.due_at`,
    );
  }

  /** Stores jobs; one already stored under the same id is left as it is. */
  async insert(jobs: JobRecord[]): Promise<void> {
    if (this.db.dialect === 'postgres') await this.db.query(INSERT_JOBS, columns(jobs.map(JOB_ROW), 9));
    else await eachRow(this.db, INSERT_JOB, jobs.map(JOB_ROW));
  }

  async delete(ids: string[]): Promise<void> {
    await this.db.query(`DELETE FROM jobs WHERE id ${inList(this.db, '$1')}`, [ids]);
  }

  /** Who holds each job and until when (agent null: back in the queue). */
  async recordLeases(leases: { id: string; agentId: string | null; until: number }[]): Promise<void> {
    if (this.db.dialect === 'postgres')
      await this.db.query(
        `UPDATE jobs SET leased_by = t.agent, lease_expires_at = t.until
         FROM unnest($1::text[], $2::text[], $3::float8[]) AS t(id, agent, until) WHERE jobs.id = t.id`,
        [leases.map((l) => l.id), leases.map((l) => l.agentId), leases.map((l) => l.until)],
      );
    else
      await eachRow(
        this.db,
        'UPDATE jobs SET leased_by = $2, lease_expires_at = $3 WHERE id = $1',
        leases.map((l) => [l.id, l.agentId, l.until]),
      );
  }

  /** Removes jobs no agent picked up in time and records them as dropped, in one transaction. */
  async drop(jobs: { id: string; checkId: string; location: string; dueAt: number }[], reason: string): Promise<void> {
    await this.db.tx(async (tx) => {
      await tx.query(`DELETE FROM jobs WHERE id ${inList(tx, '$1')}`, [jobs.map((j) => j.id)]);
      if (tx.dialect === 'postgres')
        await tx.query(
          `INSERT INTO dropped_runs (id, check_id, location, due_at, reason)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::text[]) ON CONFLICT (id) DO NOTHING`,
          [
            jobs.map((j) => j.id),
            jobs.map((j) => j.checkId),
            jobs.map((j) => j.location),
            jobs.map((j) => j.dueAt),
            jobs.map(() => reason),
          ],
        );
      else
        await eachRow(
          tx,
          'INSERT INTO dropped_runs (id, check_id, location, due_at, reason) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING',
          jobs.map((j) => [j.id, j.checkId, j.location, j.dueAt, reason]),
        );
    });
  }

  /** Activated checks the scheduler dispatches (heartbeats are passive). */
  async scheduledChecks(): Promise<CheckRow[]> {
    return this.db.query(`SELECT * FROM checks WHERE activated AND check_type <> 'HEARTBEAT'`);
  }

  /** Every run due up to this time has been dispatched; null before the first. */
  async dispatchedThrough(): Promise<number | null> {
    const rows = await this.db.query<{ dispatched_through: number }>('SELECT dispatched_through FROM scheduler_state WHERE id = 1');
    return rows[0]?.dispatched_through ?? null;
  }

  /**
   * Stores due runs and moves the dispatched-through time on, atomically (on PostgreSQL in one
   * statement: one round trip).
   */
  async queueRuns(jobs: JobRecord[], through: number): Promise<void> {
    const advance = (p: string) =>
      `INSERT INTO scheduler_state (id, dispatched_through) VALUES (1, ${p})
       ON CONFLICT (id) DO UPDATE SET dispatched_through = ${this.db.dialect === 'postgres' ? 'GREATEST' : 'max'}(scheduler_state.dispatched_through, EXCLUDED.dispatched_through)`;
    if (this.db.dialect === 'postgres') {
      await this.db.query(`WITH queued AS (${INSERT_JOBS} RETURNING 1) ${advance('$10')}`, [...columns(jobs.map(JOB_ROW), 9), through]);
      return;
    }
    await this.db.tx(async (tx) => {
      for (const j of jobs) await tx.query(INSERT_JOB, JOB_ROW(j));
      await tx.query(advance('$1'), [through]);
    });
  }
}
