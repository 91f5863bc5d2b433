// Leasing, re-dispatch and expiry of jobs. Jobs live in the database (so a restart loses none)
// and in memory (so leasing is a map lookup, not a query). Every job belongs to one queue:
// `dc:<location>` for data-center runs, `pl:<privateLocationId>` for a private location.

import { storeJudged, type AlertEngine } from './alerting.js';
import type { Repositories } from './store/index.js';
import type { Logger } from '../log.js';
import type { ServiceMetrics } from './metrics.js';
import { sessionOfJob, type Job, type RunResult } from '../domain/run.js';
import { Deque } from './deque.js';
import { jobFor, type CheckRow } from './store/checks.js';
import type { Delivered } from './store/results.js';
import { isNetworkError, judgeAttempt, type RetryStrategy } from '../domain/retries.js';
import { randomUUID } from 'node:crypto';
import type { JobRecord } from './store/jobs.js';
import { systemClock, type Clock } from './clock.js';
import { SERVICE_TICK_MS, Ticker } from './ticker.js';

const INGEST_MAX_BATCH = 2000;
/**
 * Leases are written at most this often: they matter only after a restart (a job whose lease
 * was not written yet is handed out again, its second result dropped by job id).
 */
const LEASE_WRITE_COALESCE_MS = 1000;
const SWEEP_EVERY_MS = 1000;

export interface JobQueueOptions {
  leaseMs: number;
  /** A run no agent takes within this long of becoming available is dropped. */
  unclaimedTtlMs: number;
  /** Adds what a job needs from elsewhere (variables, snippets) as it is handed out, so it is current. */
  prepare?: (job: Job, accountId: string) => Job;
  /** A check as it runs (its group's settings applied), for jobs rebuilt at start. */
  effective?: (row: CheckRow) => CheckRow;
  clock?: Clock;
}

export interface QueuedJob {
  job: Job;
  accountId: string;
  queueKey: string;
  /** When it last became available to agents: the 6-minute pick-up window counts from here. */
  queuedAt: number;
  leasedBy: string | null;
  leaseExpiresAt: number;
  /** Its row is in the database (runs that finish before the scheduler's next write never get one). */
  written?: boolean;
  /** A result has arrived: the scheduler must not write it any more. */
  done?: boolean;
}

/** How a check retries, and the row and targets its retries are built from. */
export interface RetryPlan {
  strategy: RetryStrategy;
  row: CheckRow;
  targets: { queueKey: string; location: string }[];
}

export interface Lessee {
  agentId: string;
  queueKeys: string[];
  /** The private-location key the agent authenticated with; revoking it ends its waits. */
  keyId: string | null;
  /** Queues of browser jobs (runtime lanes), of which it takes at most maxBrowser per lease. */
  browserKeys?: ReadonlySet<string>;
  maxBrowser?: number;
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
  /** The grid the queue's periodic work and the scheduler's share. */
  readonly ticker: Ticker;

  private readonly leaseMs: number;
  private readonly unclaimedTtlMs: number;
  private readonly prepare: (job: Job, accountId: string) => Job;
  private readonly effective: (row: CheckRow) => CheckRow;
  private readonly clock: Clock;

  constructor(
    private store: Pick<Repositories, 'jobs' | 'results' | 'tx'>,
    private log: Logger,
    private metrics: ServiceMetrics,
    opts: JobQueueOptions,
  ) {
    this.leaseMs = opts.leaseMs;
    this.unclaimedTtlMs = opts.unclaimedTtlMs;
    this.prepare = opts.prepare ?? ((job) => job);
    this.effective = opts.effective ?? ((row) => row);
    this.clock = opts.clock ?? systemClock;
    this.ticker = new Ticker(this.clock, SERVICE_TICK_MS);
  }

  async load(): Promise<void> {
    // Jobs are stored lean; what an agent needs is rebuilt from the check as it is now.
    const rows = await this.store.jobs.load();
    const now = this.clock.now();
    const retries: QueuedJob[] = [];
    for (const r of rows) {
      const job = jobFor(this.effective(r), r.due_at, r.location, sessionOfJob(r.job_id));
      if (r.sequence) job.sequence = r.sequence;
      const q: QueuedJob = {
        // A session's run keeps its session: results delivered after the restart complete it.
        job,
        accountId: r.account_id,
        queueKey: r.queue_key,
        queuedAt: now,
        leasedBy: r.leased_by,
        leaseExpiresAt: r.lease_expires_at ?? 0,
        written: true,
      };
      // A retry not yet due waits for its time again.
      if (r.sequence && !q.leasedBy) {
        retries.push(q);
        continue;
      }
      this.byId.set(q.job.id, q);
      if (!q.leasedBy) this.queue(q.queueKey).push(q);
    }
    this.hold(retries);
    this.sweepSoon();
    this.metrics.pendingJobs.set(this.pendingCount());
    if (rows.length) this.log.info({ jobs: rows.length }, 'jobs restored from the database');
  }

  async stop(): Promise<void> {
    this.ticker.stop();
    await this.flushLeases();
    await this.flushInbox().catch(() => {});
    for (const set of this.waiters.values()) for (const w of set) w.resolve([]);
    this.waiters.clear();
    await this.writes;
  }

  /** The rows that make jobs durable. */
  static records(jobs: QueuedJob[]): JobRecord[] {
    return jobs.map((q) => ({
      id: q.job.id,
      accountId: q.accountId,
      checkId: q.job.checkId,
      location: q.job.location,
      dueAt: q.job.dueAt,
      queueKey: q.queueKey,
      leasedBy: q.leasedBy,
      leaseExpiresAt: q.leasedBy ? q.leaseExpiresAt : null,
      sequence: q.job.sequence ?? null,
    }));
  }

  /**
   * Writes that must land before anything else touches the same job rows. New jobs are handed to
   * agents before their insert commits (dispatch latency), so a result or a drop for one of them
   * waits for the insert; otherwise its DELETE could run first and the row outlive the run.
   */
  private writes: Promise<unknown> = Promise.resolve();
  private pendingLeases = new Map<string, { agentId: string | null; until: number }>();

  /** Orders a write after the ones before it; the returned promise settles with it. */
  after<T>(write: () => Promise<T>): Promise<T> {
    const p = this.writes.then(write, write);
    this.writes = p.catch(() => {});
    return p;
  }

  /** Judges FINAL results for alerting as they are stored (none: results only). */
  alerts: AlertEngine | null = null;

  /** How a check retries a failed scheduled run (the scheduler knows); null: it does not. */
  retryPlan: (checkId: string) => RetryPlan | null = () => null;

  /** Retries waiting for their time, in no queue until then. */
  private delayed = new Map<string, QueuedJob>();

  /** Queues what is due by the next tick; the rest waits, released by the ticker. */
  private hold(jobs: QueuedJob[]): void {
    const now = this.clock.now();
    const ready: QueuedJob[] = [];
    for (const q of jobs) {
      if (q.job.dueAt - SERVICE_TICK_MS <= now) ready.push(q);
      else this.delayed.set(q.job.id, q);
    }
    if (ready.length) this.add(ready);
    this.armDelayed();
  }

  private armDelayed(): void {
    let next = Infinity;
    for (const q of this.delayed.values()) next = Math.min(next, q.job.dueAt);
    if (next === Infinity) return;
    // Out at the tick before they are due, as scheduled runs are; agents start them on arrival.
    this.ticker.at('retries', next - SERVICE_TICK_MS, () => {
      const now = this.clock.now();
      const due: QueuedJob[] = [];
      for (const q of this.delayed.values()) if (q.job.dueAt - SERVICE_TICK_MS <= now) due.push(q);
      for (const q of due) {
        this.delayed.delete(q.job.id);
        q.queuedAt = now;
      }
      this.add(due);
      this.armDelayed();
    });
  }

  /**
   * A finished scheduled run: FINAL, or (failed with another attempt left) an ATTEMPT whose
   * retry is added to `retries`.
   */
  private judgeAttempt(d: Delivered, q: QueuedJob, now: number, retries: QueuedJob[]): void {
    const r = d.result;
    if (!r.hasFailures && !q.job.sequence) return; // a plain passing run: FINAL, no sequence
    const plan = r.hasFailures ? this.retryPlan(q.job.checkId) : null;
    const status = (r.detail?.apiCheckResult as { response?: { status?: number } } | undefined)?.response?.status;
    const v = judgeAttempt(
      plan?.strategy ?? null,
      {
        sequence: q.job.sequence,
        location: q.job.location,
        startedAt: r.startedAt,
        stoppedAt: r.stoppedAt,
        failed: r.hasFailures,
        networkError: isNetworkError(r.error, typeof status === 'number' && status > 0),
      },
      plan?.targets.map((t) => t.location) ?? [],
      randomUUID,
    );
    d.resultType = v.resultType;
    d.sequenceId = v.sequenceId;
    d.attempts = v.attempts;
    if (v.resultType !== 'ATTEMPT' || !plan) return;
    const target = plan.targets.find((t) => t.location === v.retry.location) ?? { queueKey: q.queueKey, location: q.job.location };
    // A retry of one location of a parallel run still counts toward that run.
    const job = {
      ...jobFor(plan.row, now + v.retry.delayMs, target.location),
      sequence: v.retry.sequence,
      ...(q.job.parallel ? { parallel: q.job.parallel } : {}),
    };
    retries.push({ job, accountId: q.accountId, queueKey: target.queueKey, queuedAt: now, leasedBy: null, leaseExpiresAt: 0 });
  }

  /** Hooks for check sessions: results stored, runs dropped. */
  onStored: (batch: { r: RunResult; q: QueuedJob }[]) => Promise<void> = async () => {};
  onDropped: (jobs: QueuedJob[]) => Promise<void> = async () => {};

  /** On-demand runs: written first, then handed out ahead of scheduled ones. */
  async addUrgent(jobs: QueuedJob[]): Promise<void> {
    const records = JobQueue.records(jobs);
    await this.after(() => this.store.jobs.insert(records));
    for (const q of jobs) {
      q.written = true;
      this.byId.set(q.job.id, q);
      this.queue(q.queueKey).unshift(q);
    }
    for (const key of new Set(jobs.map((q) => q.queueKey))) this.wake(key);
    this.metrics.pendingJobs.set(this.pendingCount());
    this.sweepSoon();
  }

  /** Withdraws queued runs by id (a cancelled session); running ones finish and are ignored. */
  async withdrawJobs(ids: Set<string>): Promise<void> {
    const gone: string[] = [];
    for (const dq of this.pending.values()) {
      for (const q of dq.remove((x) => ids.has(x.job.id))) {
        this.byId.delete(q.job.id);
        q.done = true;
        gone.push(q.job.id);
      }
    }
    for (const id of ids) this.byId.delete(id);
    if (gone.length) await this.after(() => this.store.jobs.delete(gone));
    this.metrics.pendingJobs.set(this.pendingCount());
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
    this.sweepSoon();
  }

  /** Hands up to `max` jobs to an agent, waiting up to waitMs for some to arrive. */
  lease(lessee: Lessee, max: number, waitMs: number, signal: AbortSignal): Promise<Job[] | 'revoked'> {
    const now = this.clock.now();
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
        if (!set) {
          set = new Set();
          this.waiters.set(key, set);
        }
        set.add(waiter);
      }
    });
  }

  /** The job, while the agent holds its lease and no result has come. */
  leased(jobId: string, agentId: string): QueuedJob | null {
    const q = this.byId.get(jobId);
    return q && q.leasedBy === agentId && !q.done ? q : null;
  }

  /**
   * Keeps the leases of jobs an agent reports as still running. Agents report them with every
   * lease, many times a second in a backlog, and call at least every third of a lease: a lease
   * is renewed once a third of it has passed, not written again at each call, and a third of it
   * is still left when the renewal comes.
   */
  extend(agentId: string, jobIds: string[]): void {
    const now = this.clock.now();
    const until = now + this.leaseMs;
    const renewBefore = now + (this.leaseMs * 2) / 3;
    const extended: string[] = [];
    for (const id of jobIds) {
      const q = this.byId.get(id);
      if (q && q.leasedBy === agentId && q.leaseExpiresAt <= renewBefore) {
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
      q.queuedAt = this.clock.now();
      this.queue(q.queueKey).unshift(q);
      back.push(q);
    }
    if (!back.length) return;
    this.persistLease(
      back.map((q) => q.job.id),
      null,
      0,
    );
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
      for (const { q } of fresh) q.done = true;
      await this.ingest(fresh);
    }
    return [...seen];
  }

  // Results of the requests handled in one turn of the event loop are stored together, in one
  // statement (PostgreSQL) or one commit (SQLite), without waiting on a timer.
  private inbox: { r: RunResult; q: QueuedJob }[] = [];
  private inboxWaiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  private inboxTimer: NodeJS.Immediate | null = null;

  private ingest(batch: { r: RunResult; q: QueuedJob }[]): Promise<void> {
    this.inbox.push(...batch);
    const done = new Promise<void>((resolve, reject) => this.inboxWaiters.push({ resolve, reject }));
    if (this.inbox.length >= INGEST_MAX_BATCH) void this.flushInbox();
    else if (!this.inboxTimer) this.inboxTimer = setImmediate(() => void this.flushInbox());
    return done;
  }

  private async flushInbox(): Promise<void> {
    if (this.inboxTimer) clearImmediate(this.inboxTimer);
    this.inboxTimer = null;
    const fresh = this.inbox.splice(0);
    const waiters = this.inboxWaiters.splice(0);
    if (!fresh.length) return;
    const retries: QueuedJob[] = [];
    try {
      await this.after(async () => {
        const written = fresh.filter(({ q }) => q.written).map(({ r }) => r.jobId);
        const now = this.clock.now();
        retries.length = 0;
        const delivered = fresh.map(({ r, q }) => {
          const d: Delivered = { result: r, accountId: q.accountId, job: q.job };
          // Check sessions run once: their results are FINAL.
          if (!q.job.sessionId) this.judgeAttempt(d, q, now, retries);
          return d;
        });
        // Judged before they are stored, and stored with what was decided, in one transaction.
        await storeJudged(this.store, this.alerts, delivered, written, JobQueue.records(retries));
      });
    } catch (err) {
      // Not stored: the agents keep these results and send them again.
      for (const { q } of fresh) q.done = false;
      for (const w of waiters) w.reject(err);
      return;
    }
    const storedAt = this.clock.now();
    for (const { r, q } of fresh) {
      this.metrics.resultLatencyRecent.observe(Math.max(0, storedAt - r.stoppedAt) / 1000);
      this.byId.delete(r.jobId);
      if (!q.leasedBy) this.pending.get(q.queueKey)?.remove((x) => x === q);
      const latency = Math.max(0, r.startedAt - q.job.dueAt) / 1000;
      this.metrics.dispatchLatency.observe(latency);
      this.metrics.dispatchLatencyRecent.observe(latency);
    }
    this.metrics.resultsStored.inc(fresh.length);
    for (const q of retries) q.written = true;
    this.hold(retries);
    for (const w of waiters) w.resolve();
    if (fresh.some(({ q }) => q.job.sessionId))
      await this.onStored(fresh).catch((err) => this.log.error({ err }, 'could not update check sessions'));
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
        q.done = true;
        gone.push(q.job.id);
      }
    }
    for (const q of [...this.delayed.values()]) {
      if (q.job.checkId !== checkId) continue;
      this.delayed.delete(q.job.id);
      gone.push(q.job.id);
    }
    if (gone.length) await this.after(() => this.store.jobs.delete(gone));
    this.metrics.pendingJobs.set(this.pendingCount());
  }

  /** Check sessions that still have runs queued or running. */
  sessionsWithRuns(): Set<string> {
    const out = new Set<string>();
    for (const q of this.byId.values()) if (q.job.sessionId) out.add(q.job.sessionId);
    return out;
  }

  pendingCount(): number {
    let n = 0;
    for (const dq of this.pending.values()) n += dq.length;
    return n;
  }

  private queue(key: string): Deque<QueuedJob> {
    let dq = this.pending.get(key);
    if (!dq) {
      dq = new Deque();
      this.pending.set(key, dq);
    }
    return dq;
  }

  private take(lessee: Lessee, max: number, now: number): Job[] {
    const out: Job[] = [];
    const until = now + this.leaseMs;
    // Browser slots are few and expensive: an agent gets no more browser jobs than it has free.
    let browserLeft = lessee.maxBrowser ?? 0;
    // Round-robin over the agent's queues so one busy location does not starve the others.
    let progress = true;
    while (out.length < max && progress) {
      progress = false;
      for (const key of lessee.queueKeys) {
        const browser = lessee.browserKeys?.has(key) ?? false;
        if (browser && browserLeft <= 0) continue;
        const q = this.pending.get(key)?.shift();
        if (!q) continue;
        if (browser) browserLeft--;
        q.leasedBy = lessee.agentId;
        q.leaseExpiresAt = until;
        out.push(this.prepare(q.job, q.accountId));
        progress = true;
        if (out.length >= max) break;
      }
    }
    if (out.length) {
      this.persistLease(
        out.map((j) => j.id),
        lessee.agentId,
        until,
      );
      this.metrics.pendingJobs.set(this.pendingCount());
    }
    return out;
  }

  private wake(key: string): void {
    const set = this.waiters.get(key);
    if (!set) return;
    for (const w of [...set]) {
      const jobs = this.take(w.lessee, w.max, this.clock.now());
      if (jobs.length === 0) break;
      w.resolve(jobs);
    }
  }

  // Leases are written after the agent has its jobs, many at a time: if the service dies in
  // between, a job is handed out again after restart and its second result is dropped by job id.
  private persistLease(ids: string[], agentId: string | null, until: number): void {
    for (const id of ids) this.pendingLeases.set(id, { agentId, until });
    this.ticker.at('leases', this.clock.now() + LEASE_WRITE_COALESCE_MS, () => void this.flushLeases());
  }

  private flushLeases(): Promise<void> {
    this.ticker.cancel('leases');
    const all = [...this.pendingLeases];
    this.pendingLeases.clear();
    return this.after(() => {
      // Rows not written yet get their lease with their insert.
      const batch = all.filter(([id]) => this.byId.get(id)?.written);
      if (!batch.length) return Promise.resolve();
      return this.store.jobs.recordLeases(batch.map(([id, l]) => ({ id, agentId: l.agentId, until: l.until })));
    }).catch((err) => this.log.error({ err }, 'could not record job leases'));
  }

  /** While there are jobs, sweeps about every second. */
  private sweepSoon(): void {
    if (!this.byId.size) return;
    this.ticker.at(
      'sweep',
      this.clock.now() + SWEEP_EVERY_MS,
      () =>
        void this.sweep()
          .catch((err) => this.log.error({ err }, 'job sweep failed'))
          .finally(() => this.sweepSoon()),
    );
  }

  /** Re-dispatches jobs whose lease expired and drops runs nobody took in time. */
  async sweep(): Promise<void> {
    const now = this.clock.now();
    const expired: QueuedJob[] = [];
    for (const q of this.byId.values()) if (q.leasedBy && q.leaseExpiresAt < now) expired.push(q);
    for (const q of expired) {
      this.log.warn(
        { jobId: q.job.id, agentId: q.leasedBy, checkId: q.job.checkId },
        'lease expired: agent went silent, dispatching the job again',
      );
      q.leasedBy = null;
      q.queuedAt = now;
      this.queue(q.queueKey).unshift(q);
      this.metrics.jobsRedispatched.inc();
    }
    if (expired.length) {
      this.persistLease(
        expired.map((q) => q.job.id),
        null,
        0,
      );
      for (const key of new Set(expired.map((q) => q.queueKey))) this.wake(key);
    }

    const dropped: QueuedJob[] = [];
    for (const dq of this.pending.values()) {
      if (!dq.length) continue;
      for (const q of dq.remove((x) => now - x.queuedAt > this.unclaimedTtlMs)) dropped.push(q);
    }
    if (dropped.length) {
      for (const q of dropped) {
        this.byId.delete(q.job.id);
        q.done = true;
      }
      this.metrics.runsDropped.inc({ reason: 'unclaimed' }, dropped.length);
      this.log.warn(
        { count: dropped.length, locations: [...new Set(dropped.map((q) => q.job.location))] },
        `runs dropped: no agent picked them up within ${this.unclaimedTtlMs / 1000} s`,
      );
      await this.after(() =>
        this.store.jobs.drop(
          dropped.map((q) => ({ id: q.job.id, checkId: q.job.checkId, location: q.job.location, dueAt: q.job.dueAt })),
          'unclaimed',
        ),
      );
      if (dropped.some((q) => q.job.sessionId)) await this.onDropped(dropped);
    }
    if (expired.length || dropped.length) this.metrics.pendingJobs.set(this.pendingCount());
  }
}
