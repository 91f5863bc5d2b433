// Turns due checks into jobs. The next due time of each check is kept in memory (a heap); the
// time up to which every due run has been dispatched is written to the database in the same
// transaction as the jobs it produced, and each check's next due time follows from it and the
// check's schedule, so after a restart no run is made twice and none still worth running is
// lost.

import type { Repositories } from './store/index.js';
import type { Logger } from '../log.js';
import type { ServiceMetrics } from './metrics.js';
import { JobQueue, type QueuedJob, type RetryPlan } from './jobs.js';
import { effectiveRetry, type RetryStrategy } from '../domain/retries.js';
import { MinHeap } from './deque.js';
import { periodMs, phaseMs, nextDue, lastDue, locationsForRun } from '../domain/schedule.js';
import { jobCheck, jobFor, runtimeOf, type CheckRow } from './store/checks.js';
import { declarationOf } from '../domain/check-types/index.js';
import { systemClock, type Clock } from './clock.js';
import { SERVICE_TICK_MS } from './ticker.js';
import type { JobCheck } from '../domain/run.js';

/** Suffix of the queues holding jobs that need the full agent profile. */
export const FULL_LANE = '#full';
export const runtimeLane = (runtimeId: string) => `#rt:${runtimeId}`;

export interface Target {
  queueKey: string;
  location: string;
}

/**
 * How long the dispatched-through time may wait to be written when no run needs a row. With a
 * tick on top it stays below the shortest check period (10 s), so a restart remakes at most
 * each check's latest run and counts no run as missed that was made.
 */
const MARK_EVERY_MS = 8_000;

interface Scheduled {
  row: CheckRow;
  /** What every job of the row carries of it: one object, so its JSON is made once (see job-json.ts). */
  check: JobCheck;
  period: number;
  phase: number;
  targets: Target[];
  nextDue: number;
}

export class Scheduler {
  private heap = new MinHeap<Scheduled>();
  private byId = new Map<string, Scheduled>();
  private firing: Promise<void> | null = null;
  private stopped = false;
  private unwritten: QueuedJob[] = [];
  /** Every run due up to this time is dispatched, not yet written so. */
  private unwrittenThrough: number | null = null;
  /** When the dispatched-through time was last written. */
  private markWrittenAt = -Infinity;

  constructor(
    private store: Pick<Repositories, 'jobs' | 'privateLocations'>,
    private jobs: JobQueue,
    private log: Logger,
    private metrics: ServiceMetrics,
    private unclaimedTtlMs: number,
    private clock: Clock = systemClock,
    /** A check as it runs (its group's settings applied). */
    readonly effective: (row: CheckRow) => CheckRow = (row) => row,
  ) {}

  async start(): Promise<void> {
    // Heartbeats are passive: the HeartbeatMonitor watches them, nothing is dispatched.
    const rows = await this.store.jobs.scheduledChecks();
    const slugs = await this.store.privateLocations.slugIndex();
    const through = await this.store.jobs.dispatchedThrough();
    const now = this.clock.now();
    let missed = 0;
    for (const checkRow of rows) {
      const row = this.effective(checkRow);
      if (!row.activated) continue;
      const s = this.plan(row, slugs);
      // A check created since was never due before it existed.
      const stored = through === null ? null : nextDue(Math.max(through, row.created_at.getTime()), s.period, s.phase);
      if (stored !== null && stored <= now) {
        // Down over one or more due times: run the latest if it is still fresh, skip the rest.
        const latest = lastDue(now, s.period, s.phase);
        missed += Math.max(0, Math.floor((latest - stored) / s.period));
        if (latest >= stored && now - latest <= this.unclaimedTtlMs) s.nextDue = latest;
        else missed += 1;
      } else if (stored !== null && stored - now <= s.period) {
        s.nextDue = stored;
      }
      this.track(s);
    }
    if (missed) {
      this.metrics.runsDropped.inc({ reason: 'service_down' }, missed);
      this.log.warn({ missed }, 'runs missed while the service was down');
    }
    this.log.info({ checks: rows.length }, 'scheduler started');
    this.arm();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.jobs.ticker.cancel('schedule');
    this.jobs.ticker.cancel('schedule-write');
    this.jobs.ticker.cancel('schedule-mark');
    await this.firing;
    await this.write(true);
  }

  /**
   * Called after a check (or its group) is created or updated. slugs: the account's private
   * locations (PrivateLocationRepository.slugIndex), when the caller has just read them.
   */
  async upsert(stored: CheckRow, slugs?: Map<string, string>): Promise<void> {
    const row = this.effective(stored);
    const old = this.byId.get(row.id);
    if (!row.activated || row.check_type === 'HEARTBEAT') return this.remove(row.id, false);
    const s = this.plan(row, slugs ?? (await this.slugsFor(row)));
    if (old && old.period === s.period && old.phase === s.phase) s.nextDue = old.nextDue;
    this.track(s);
    this.arm();
  }

  /** Stops scheduling a check and withdraws its queued runs. */
  async remove(checkId: string, deleted: boolean): Promise<void> {
    this.byId.delete(checkId);
    await this.jobs.withdraw(checkId, deleted);
  }

  /** Whether maintenance pauses a check's run due at `at` (the service sets it). */
  paused: (row: CheckRow, at: number) => boolean = () => false;

  /** How a scheduled check retries a failed run; null when it does not (or is not scheduled). */
  retryPlan(checkId: string): RetryPlan | null {
    const s = this.byId.get(checkId);
    if (!s) return null;
    const c = s.row.config;
    const strategy = effectiveRetry(c.retryStrategy as RetryStrategy | null, c.doubleCheck);
    return strategy ? { strategy, row: s.row, targets: s.targets } : null;
  }

  /** Where a check runs: one target per location and private location. `row`: as it runs. */
  async targetsFor(row: CheckRow): Promise<Target[]> {
    return this.plan(row, await this.slugsFor(row)).targets;
  }

  private async slugsFor(row: CheckRow): Promise<Map<string, string>> {
    return row.config.privateLocations?.length ? this.store.privateLocations.slugIndex(row.account_id) : new Map();
  }

  private plan(row: CheckRow, slugs: Map<string, string>): Scheduled {
    const cfg = row.config;
    const period = periodMs(cfg);
    const phase = phaseMs(row.id, cfg);
    const targets: Target[] = [];
    // Jobs only the full agent can run wait in their own queue, which uptime agents never read.
    // Runs under a runtime wait in that runtime's queue, read by agents that carry it.
    const kind = declarationOf(row.check_type)?.lane ?? 'full';
    const lane = kind === 'uptime' ? '' : kind === 'runtime' ? runtimeLane(runtimeOf(row)!) : FULL_LANE;
    for (const loc of cfg.locations ?? []) targets.push({ queueKey: `dc:${loc}${lane}`, location: loc });
    for (const slug of cfg.privateLocations ?? []) {
      const id = slugs.get(`${row.account_id}/${slug}`);
      if (id) targets.push({ queueKey: `pl:${id}${lane}`, location: slug });
    }
    return { row, check: jobCheck(row), period, phase, targets, nextDue: nextDue(this.clock.now(), period, phase) };
  }

  private track(s: Scheduled): void {
    this.byId.set(s.row.id, s);
    this.heap.push(s.nextDue, s);
  }

  private arm(): void {
    if (this.stopped) return;
    const due = this.heap.peekKey();
    if (due === undefined) return;
    // Runs go out at the tick before they are due and agents start them as they arrive: up to
    // a tick early, never late for want of a tick, and one wakeup for all of a tick's runs.
    this.jobs.ticker.at('schedule', due - SERVICE_TICK_MS, (tick) => {
      if (!this.firing)
        this.firing = this.fire(tick).finally(() => {
          this.firing = null;
          this.arm();
        });
    });
  }

  private async fire(tick: number): Promise<void> {
    const now = Math.max(tick, this.clock.now());
    const until = now + SERVICE_TICK_MS;
    const due: { s: Scheduled; at: number }[] = [];
    for (let k = this.heap.peekKey(); k !== undefined && k <= until; k = this.heap.peekKey()) {
      const { k: at, v: s } = this.heap.pop()!;
      // Entries of updated or removed checks stay in the heap until they surface: skip them.
      if (this.byId.get(s.row.id) !== s || s.nextDue !== at) continue;
      due.push({ s, at });
    }
    if (due.length === 0) return;

    const queued: QueuedJob[] = [];
    for (const { s, at } of due) {
      const where = locationsForRun(
        at,
        s.period,
        s.phase,
        s.targets.map((t) => t.location),
        !!s.row.config.runParallel,
      );
      // Inside a maintenance window that pauses it, a check's run is skipped, not queued.
      const here = this.paused(s.row, at) ? [] : s.targets.filter((t) => where.includes(t.location));
      const parallel = s.row.config.runParallel && here.length > 1 ? { at, of: here.length } : undefined;
      for (const t of here) {
        queued.push({
          job: { ...jobFor(s.row, at, t.location, undefined, s.check), ...(parallel ? { parallel } : {}) },
          accountId: s.row.account_id,
          queueKey: t.queueKey,
          queuedAt: now,
          leasedBy: null,
          leaseExpiresAt: 0,
        });
      }
      s.nextDue = nextDue(Math.max(at, now), s.period, s.phase);
    }

    // Agents get the runs now; the write that makes them durable follows at the next tick, when
    // most of them are done and need no row (see JobQueue.after). Should the service die before
    // it commits, the dispatched-through time stays before these runs, so the restarted
    // scheduler makes the latest of them again: late, not lost, and not doubled, as a result of the first attempt
    // is then refused by job id.
    this.jobs.add(queued);
    this.metrics.runsScheduled.inc(queued.length);
    for (const { s } of due) if (this.byId.get(s.row.id) === s) this.heap.push(s.nextDue, s);
    this.unwritten.push(...queued);
    this.unwrittenThrough = until;
    this.jobs.ticker.at('schedule-write', now + 1, () => void this.write());
  }

  /**
   * Makes the runs dispatched since the last write durable, in one transaction. When every one
   * of them is done, only the dispatched-through time is left to write, and it waits up to
   * MARK_EVERY_MS: at steady rates agents report a tick's runs before the next tick, and that
   * time alone cost a commit and a log sync every tick.
   * Should the service die meanwhile, the latest of those runs is made again after the
   * restart and its result refused by job id; none is lost.
   */
  private write(force = false): Promise<void> {
    // A run whose result is already in needs no row.
    const queued = this.unwritten.splice(0).filter((q) => !q.done);
    const through = this.unwrittenThrough;
    if (through === null) return Promise.resolve();
    const now = this.clock.now();
    if (!force && !queued.length && now - this.markWrittenAt < MARK_EVERY_MS) {
      this.jobs.ticker.at('schedule-mark', this.markWrittenAt + MARK_EVERY_MS, () => void this.write(true));
      return Promise.resolve();
    }
    this.jobs.ticker.cancel('schedule-mark');
    this.unwrittenThrough = null;
    this.markWrittenAt = now;
    const records = JobQueue.records(queued);
    return this.jobs
      .after(() => this.store.jobs.queueRuns(records, through))
      .then(() => {
        for (const q of queued) q.written = true;
      })
      .catch((err) => this.log.error({ err, runs: queued.length }, 'could not record due runs'));
  }
}
