// Leasing, re-dispatch and expiry of jobs. Jobs live in the database (so a restart loses none)
// and in memory (so leasing is a map lookup, not a query). Every job belongs to one queue:
// `dc:<location>` for data-center runs, `pl:<privateLocationId>` for a private location.

import { randomUUID } from 'node:crypto';
import type { Db } from './store/db.js';
import type { Logger } from '../log.js';
import type { ServiceMetrics } from './metrics.js';
import type { Job, RunResult } from '../domain/run.js';
import { Deque } from './deque.js';
import { jobFor, type CheckRow } from './store/checks.js';

export interface QueuedJob {
  job: Job;
  accountId: string;
  queueKey: string;
  /** When it last became available to agents: the 6-minute pick-up window counts from here. */
  queuedAt: number;
  leasedBy: string | null;
  leaseExpiresAt: number;
}

export interface Lessee {
  agentId: string;
  queueKeys: string[];
  /** The private-location key the agent authenticated with; revoking it ends its waits. */
  keyId: string | null;
}

interface Waiter {
  lessee: Lessee;
  max: number;
  resolve: (jobs: Job[] | 'revoked') => void;
}

export class JobQueue {
  private pending = new Map<string, Deque<QueuedJob>>();
  private byId = new Map<string, QueuedJob>();
  private waiters = new Map<string, Set<Waiter>>();
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    private db: Db,
    private log: Logger,
    private metrics: ServiceMetrics,
    private leaseMs: number,
    private unclaimedTtlMs: number,
  ) {}

  async load(): Promise<void> {
    // Jobs are stored lean; what an agent needs is rebuilt from the check as it is now.
    const rows = await this.db.query<CheckRow & { job_id: string; location: string; due_at: number; queue_key: string; leased_by: string | null; lease_expires_at: number | null }>(
      `SELECT c.*, j.id AS job_id, j.location, j.due_at, j.queue_key, j.leased_by, j.lease_expires_at
       FROM jobs j JOIN checks c ON c.id = j.check_id ORDER BY j.due_at`,
    );
    const now = Date.now();
    for (const r of rows) {
      const q: QueuedJob = {
        job: jobFor(r, r.due_at, r.location),
        accountId: r.account_id,
        queueKey: r.queue_key,
        queuedAt: now,
        leasedBy: r.leased_by,
        leaseExpiresAt: r.lease_expires_at ?? 0,
      };
      this.byId.set(q.job.id, q);
      if (!q.leasedBy) this.queue(q.queueKey).push(q);
    }
    this.sweeper = setInterval(() => void this.sweep().catch((err) => this.log.error({ err }, 'job sweep failed')), 1000);
    this.sweeper.unref();
    this.metrics.pendingJobs.set(this.pendingCount());
    if (rows.length) this.log.info({ jobs: rows.length }, 'jobs restored from the database');
  }

  async stop(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    if (this.leaseFlush) clearTimeout(this.leaseFlush);
    for (const set of this.waiters.values()) for (const w of set) w.resolve([]);
    this.waiters.clear();
    await this.writes;
  }

  /** Rows to insert for new jobs; the scheduler writes them in the same transaction as its bookkeeping. */
  static rows(jobs: QueuedJob[]) {
    return {
      ids: jobs.map((q) => q.job.id),
      accounts: jobs.map((q) => q.accountId),
      checks: jobs.map((q) => q.job.checkId),
      locations: jobs.map((q) => q.job.location),
      dues: jobs.map((q) => q.job.dueAt),
      queueKeys: jobs.map((q) => q.queueKey),
    };
  }

  static readonly INSERT_SQL =
    'INSERT INTO jobs (id, account_id, check_id, location, due_at, queue_key) ' +
    'SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::text[]) ON CONFLICT (id) DO NOTHING';

  /**
   * Writes that must land before anything else touches the same job rows. New jobs are handed to
   * agents before their insert commits (dispatch latency), so a result or a drop for one of them
   * waits for the insert; otherwise its DELETE could run first and the row outlive the run.
   */
  private writes: Promise<unknown> = Promise.resolve();
  private pendingLeases = new Map<string, { agentId: string | null; until: number }>();
  private leaseFlush: NodeJS.Timeout | null = null;

  /** Orders a write after the ones before it; the returned promise settles with it. */
  after<T>(write: () => Promise<T>): Promise<T> {
    const p = this.writes.then(write, write);
    this.writes = p.catch(() => {});
    return p;
  }

  /** Makes committed jobs available to agents. */
  add(jobs: QueuedJob[]): void {
    const touched = new Set<string>();
    for (const q of jobs) {
      if (this.byId.has(q.job.id)) continue;
      this.byId.set(q.job.id, q);
      this.queue(q.queueKey).push(q);
      touched.add(q.queueKey);
    }
    for (const key of touched) this.wake(key);
    this.metrics.pendingJobs.set(this.pendingCount());
  }

  /** Hands up to `max` jobs to an agent, waiting up to waitMs for some to arrive. */
  lease(lessee: Lessee, max: number, waitMs: number, signal: AbortSignal): Promise<Job[] | 'revoked'> {
    const now = Date.now();
    const taken = this.take(lessee, max, now);
    if (taken.length > 0 || max === 0 || waitMs <= 0) return Promise.resolve(taken);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        lessee,
        max,
        resolve: (jobs) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          for (const key of lessee.queueKeys) this.waiters.get(key)?.delete(waiter);
          resolve(jobs);
        },
      };
      const onAbort = () => waiter.resolve([]);
      const timer = setTimeout(onAbort, waitMs);
      signal.addEventListener('abort', onAbort, { once: true });
      for (const key of lessee.queueKeys) {
        let set = this.waiters.get(key);
        if (!set) this.waiters.set(key, (set = new Set()));
        set.add(waiter);
      }
    });
  }

  /** Keeps the leases of jobs an agent reports as still running. */
  extend(agentId: string, jobIds: string[]): void {
    const until = Date.now() + this.leaseMs;
    const extended: string[] = [];
    for (const id of jobIds) {
      const q = this.byId.get(id);
      if (q && q.leasedBy === agentId) {
        q.leaseExpiresAt = until;
        extended.push(id);
      }
    }
    if (extended.length) this.persistLease(extended, agentId, until);
  }

  /** An agent shutting down hands back jobs it leased but never started. */
  release(agentId: string, jobIds: string[]): void {
    const back: QueuedJob[] = [];
    for (const id of jobIds) {
      const q = this.byId.get(id);
      if (!q || q.leasedBy !== agentId) continue;
      q.leasedBy = null;
      q.queuedAt = Date.now();
      this.queue(q.queueKey).unshift(q);
      back.push(q);
    }
    if (!back.length) return;
    this.persistLease(back.map((q) => q.job.id), null, 0);
    for (const key of new Set(back.map((q) => q.queueKey))) this.wake(key);
    this.metrics.pendingJobs.set(this.pendingCount());
  }

  /** Ends the waits of agents that authenticated with a key that has just been revoked. */
  revokeKey(keyId: string): void {
    for (const set of this.waiters.values()) for (const w of set) if (w.lessee.keyId === keyId) w.resolve('revoked');
  }

  /**
   * Stores results, idempotently by job id: a result for a job already stored, or for a job
   * that no longer exists, is acknowledged and ignored. Returns the acknowledged job ids.
   */
  async complete(results: RunResult[], queueKeys: readonly string[]): Promise<string[]> {
    const fresh: { r: RunResult; q: QueuedJob }[] = [];
    const seen = new Set<string>();
    for (const r of results) {
      const q = this.byId.get(r.jobId);
      // An agent may only report runs of its own location.
      if (q && !seen.has(r.jobId) && queueKeys.includes(q.queueKey)) fresh.push({ r, q });
      seen.add(r.jobId);
    }
    if (fresh.length > 0) {
      await this.writes;
      await this.db.tx(async (tx) => {
        await tx.query(
          `INSERT INTO check_results (id, job_id, account_id, check_id, check_type, name, run_location, has_failures, has_errors,
             is_degraded, over_max_response_time, response_time, started_at, stopped_at, created_at, check_run_id, error, detail)
           SELECT id, job_id, account_id, check_id, check_type, name, run_location, has_failures, has_errors, is_degraded, over_max,
             response_time, to_timestamp(started / 1000.0), to_timestamp(stopped / 1000.0), to_timestamp(stopped / 1000.0), run_id, error, detail
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bool[], $9::bool[],
             $10::bool[], $11::bool[], $12::float8[], $13::float8[], $14::float8[], $15::float8[], $16::text[], $17::jsonb[])
             AS t(id, job_id, account_id, check_id, check_type, name, run_location, has_failures, has_errors, is_degraded, over_max,
                  response_time, started, stopped, run_id, error, detail)
           ON CONFLICT (job_id) DO NOTHING`,
          [
            fresh.map(() => randomUUID()),
            fresh.map(({ r }) => r.jobId),
            fresh.map(({ q }) => q.accountId),
            fresh.map(({ q }) => q.job.checkId),
            fresh.map(({ q }) => q.job.checkType),
            fresh.map(({ q }) => q.job.check.name),
            fresh.map(({ q }) => q.job.location),
            fresh.map(({ r }) => r.hasFailures),
            fresh.map(({ r }) => r.hasErrors),
            fresh.map(({ r }) => r.isDegraded),
            fresh.map(({ r }) => r.overMaxResponseTime),
            fresh.map(({ r }) => r.responseTime),
            fresh.map(({ r }) => r.startedAt),
            fresh.map(({ r }) => r.stoppedAt),
            fresh.map(({ q }) => q.job.dueAt),
            fresh.map(({ r }) => r.error),
            fresh.map(({ r }) => JSON.stringify({ ...r.detail, error: r.error })),
          ],
        );
        await tx.query('DELETE FROM jobs WHERE id = ANY($1::text[])', [fresh.map(({ r }) => r.jobId)]);
        await upsertStatuses(tx, fresh);
      });
      for (const { r, q } of fresh) {
        this.byId.delete(r.jobId);
        if (!q.leasedBy) this.pending.get(q.queueKey)?.remove((x) => x === q);
        const latency = Math.max(0, r.startedAt - q.job.dueAt) / 1000;
        this.metrics.dispatchLatency.observe(latency);
        this.metrics.dispatchLatencyRecent.observe(latency);
      }
      this.metrics.resultsStored.inc(fresh.length);
    }
    return [...seen];
  }

  /**
   * Deactivation and deletion stop runs at once: queued runs of the check are withdrawn. After a
   * deletion, results of runs already under way are dropped too.
   */
  async withdraw(checkId: string, deleted: boolean): Promise<void> {
    const gone: string[] = [];
    if (deleted) for (const q of this.byId.values()) if (q.leasedBy && q.job.checkId === checkId) this.byId.delete(q.job.id);
    for (const dq of this.pending.values()) {
      for (const q of dq.remove((x) => x.job.checkId === checkId)) {
        this.byId.delete(q.job.id);
        gone.push(q.job.id);
      }
    }
    if (gone.length) await this.after(() => this.db.query('DELETE FROM jobs WHERE id = ANY($1::text[])', [gone]));
    this.metrics.pendingJobs.set(this.pendingCount());
  }

  pendingCount(): number {
    let n = 0;
    for (const dq of this.pending.values()) n += dq.length;
    return n;
  }

  private queue(key: string): Deque<QueuedJob> {
    let dq = this.pending.get(key);
    if (!dq) this.pending.set(key, (dq = new Deque()));
    return dq;
  }

  private take(lessee: Lessee, max: number, now: number): Job[] {
    const out: Job[] = [];
    const until = now + this.leaseMs;
    // Round-robin over the agent's queues so one busy location does not starve the others.
    let progress = true;
    while (out.length < max && progress) {
      progress = false;
      for (const key of lessee.queueKeys) {
        const q = this.pending.get(key)?.shift();
        if (!q) continue;
        q.leasedBy = lessee.agentId;
        q.leaseExpiresAt = until;
        out.push(q.job);
        progress = true;
        if (out.length >= max) break;
      }
    }
    if (out.length) {
      this.persistLease(out.map((j) => j.id), lessee.agentId, until);
      this.metrics.pendingJobs.set(this.pendingCount());
    }
    return out;
  }

  private wake(key: string): void {
    const set = this.waiters.get(key);
    if (!set) return;
    for (const w of [...set]) {
      const jobs = this.take(w.lessee, w.max, Date.now());
      if (jobs.length === 0) break;
      w.resolve(jobs);
    }
  }

  // Leases are written after the agent has its jobs, many at a time: if the service dies in
  // between, a job is handed out again after restart and its second result is dropped by job id.
  private persistLease(ids: string[], agentId: string | null, until: number): void {
    for (const id of ids) this.pendingLeases.set(id, { agentId, until });
    if (this.leaseFlush) return;
    this.leaseFlush = setTimeout(() => {
      this.leaseFlush = null;
      const batch = [...this.pendingLeases];
      this.pendingLeases.clear();
      void this.after(() =>
        this.db.query(
          `UPDATE jobs SET leased_by = t.agent, lease_expires_at = t.until
           FROM unnest($1::text[], $2::text[], $3::float8[]) AS t(id, agent, until) WHERE jobs.id = t.id`,
          [batch.map(([id]) => id), batch.map(([, l]) => l.agentId), batch.map(([, l]) => l.until)],
        ),
      ).catch((err) => this.log.error({ err }, 'could not record job leases'));
    }, 25);
  }

  private async sweep(): Promise<void> {
    const now = Date.now();
    const expired: QueuedJob[] = [];
    for (const q of this.byId.values()) if (q.leasedBy && q.leaseExpiresAt < now) expired.push(q);
    for (const q of expired) {
      this.log.warn({ jobId: q.job.id, agentId: q.leasedBy, checkId: q.job.checkId }, 'lease expired: agent went silent, dispatching the job again');
      q.leasedBy = null;
      q.queuedAt = now;
      this.queue(q.queueKey).unshift(q);
      this.metrics.jobsRedispatched.inc();
    }
    if (expired.length) {
      this.persistLease(expired.map((q) => q.job.id), null, 0);
      for (const key of new Set(expired.map((q) => q.queueKey))) this.wake(key);
    }

    const dropped: QueuedJob[] = [];
    for (const dq of this.pending.values()) {
      if (!dq.length) continue;
      for (const q of dq.remove((x) => now - x.queuedAt > this.unclaimedTtlMs)) dropped.push(q);
    }
    if (dropped.length) {
      for (const q of dropped) this.byId.delete(q.job.id);
      this.metrics.runsDropped.inc({ reason: 'unclaimed' }, dropped.length);
      this.log.warn({ count: dropped.length, locations: [...new Set(dropped.map((q) => q.job.location))] }, `runs dropped: no agent picked them up within ${this.unclaimedTtlMs / 1000} s`);
      await this.after(() => this.db.tx(async (tx) => {
        await tx.query('DELETE FROM jobs WHERE id = ANY($1::text[])', [dropped.map((q) => q.job.id)]);
        await tx.query(
          `INSERT INTO dropped_runs (id, check_id, location, due_at, reason)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::text[]) ON CONFLICT (id) DO NOTHING`,
          [dropped.map((q) => q.job.id), dropped.map((q) => q.job.checkId), dropped.map((q) => q.job.location), dropped.map((q) => q.job.dueAt), dropped.map(() => 'unclaimed')],
        );
      }));
    }
    if (expired.length || dropped.length) this.metrics.pendingJobs.set(this.pendingCount());
  }
}

async function upsertStatuses(tx: { query: Db['query'] }, fresh: { r: RunResult; q: QueuedJob }[]) {
  // One row per check: the latest result wins, longest and shortest run fold over the batch.
  const byCheck = new Map<string, { r: RunResult; q: QueuedJob; longest: number; shortest: number }>();
  for (const { r, q } of fresh) {
    const cur = byCheck.get(q.job.checkId);
    if (!cur) byCheck.set(q.job.checkId, { r, q, longest: r.responseTime, shortest: r.responseTime });
    else {
      cur.longest = Math.max(cur.longest, r.responseTime);
      cur.shortest = Math.min(cur.shortest, r.responseTime);
      if (r.stoppedAt >= cur.r.stoppedAt) Object.assign(cur, { r, q });
    }
  }
  const rows = [...byCheck.values()];
  await tx.query(
    `INSERT INTO check_statuses AS s (check_id, account_id, name, has_failures, has_errors, is_degraded, longest_run, shortest_run,
       last_run_location, last_check_run_id, updated_at)
     SELECT check_id, account_id, name, has_failures, has_errors, is_degraded, longest, shortest, loc, run_id, to_timestamp(stopped / 1000.0)
     FROM unnest($1::text[], $2::text[], $3::text[], $4::bool[], $5::bool[], $6::bool[], $7::float8[], $8::float8[], $9::text[], $10::text[], $11::float8[])
       AS t(check_id, account_id, name, has_failures, has_errors, is_degraded, longest, shortest, loc, run_id, stopped)
     ON CONFLICT (check_id) DO UPDATE SET
       longest_run = GREATEST(s.longest_run, EXCLUDED.longest_run),
       shortest_run = LEAST(s.shortest_run, EXCLUDED.shortest_run),
       has_failures = CASE WHEN EXCLUDED.updated_at >= s.updated_at THEN EXCLUDED.has_failures ELSE s.has_failures END,
       has_errors = CASE WHEN EXCLUDED.updated_at >= s.updated_at THEN EXCLUDED.has_errors ELSE s.has_errors END,
       is_degraded = CASE WHEN EXCLUDED.updated_at >= s.updated_at THEN EXCLUDED.is_degraded ELSE s.is_degraded END,
       last_run_location = CASE WHEN EXCLUDED.updated_at >= s.updated_at THEN EXCLUDED.last_run_location ELSE s.last_run_location END,
       last_check_run_id = CASE WHEN EXCLUDED.updated_at >= s.updated_at THEN EXCLUDED.last_check_run_id ELSE s.last_check_run_id END,
       name = EXCLUDED.name,
       updated_at = GREATEST(s.updated_at, EXCLUDED.updated_at)`,
    [
      rows.map((x) => x.q.job.checkId),
      rows.map((x) => x.q.accountId),
      rows.map((x) => x.q.job.check.name),
      rows.map((x) => x.r.hasFailures),
      rows.map((x) => x.r.hasErrors),
      rows.map((x) => x.r.isDegraded),
      rows.map((x) => x.longest),
      rows.map((x) => x.shortest),
      rows.map((x) => x.q.job.location),
      rows.map((x) => String(x.q.job.dueAt)),
      rows.map((x) => x.r.stoppedAt),
    ],
  );
}
