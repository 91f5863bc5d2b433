// Check sessions: a check run now, in each of its locations, with a record that turns final
// (PASSED, FAILED, DEGRADED, TIMED_OUT, CANCELLED) once every location has reported.

import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from '../log.js';
import { jobFor, type CheckRow } from './store/checks.js';
import { FINAL_STATUSES, type SessionRepository, type SessionRow } from './store/sessions.js';
import type { JobQueue, QueuedJob } from './jobs.js';
import type { Scheduler } from './scheduler.js';
import { jobId, type RunResult } from '../domain/run.js';

export const FINAL = new Set<string>(FINAL_STATUSES);
export type { SessionRow };

/** The verdict over a session's results. Pure. */
export function sessionStatus(results: { hasFailures: boolean; isDegraded: boolean | null }[]): string {
  if (results.some((r) => r.hasFailures)) return 'FAILED';
  if (results.some((r) => r.isDegraded)) return 'DEGRADED';
  return 'PASSED';
}

export class Sessions {
  private events = new EventEmitter();

  constructor(
    private store: SessionRepository,
    private jobs: JobQueue,
    private scheduler: Scheduler,
    private log: Logger,
    private link: (id: string) => string,
  ) {
    this.events.setMaxListeners(0);
    jobs.onStored = (batch) => this.stored(batch);
    jobs.onDropped = (dropped) => this.dropped(dropped);
  }

  /** One session per check, each running in all of the check's locations at once. */
  async start(checks: CheckRow[], runSource: string): Promise<SessionRow[]> {
    const sessions: SessionRow[] = [];
    const queued: QueuedJob[] = [];
    const now = Date.now();
    for (const stored of checks) {
      const row = this.scheduler.effective(stored);
      const targets = await this.scheduler.targetsFor(row);
      const id = randomUUID();
      const s = await this.store.insert({
        id,
        accountId: row.account_id,
        checkId: row.id,
        checkType: row.check_type,
        name: row.config.name,
        runSource,
        runLocations: targets.map((t) => t.location),
        startedAt: now,
      });
      // A check with nowhere to run fails at once rather than waiting to time out.
      sessions.push(targets.length ? s : await this.finish(id, 'FAILED'));
      const parallel = row.config.runParallel && targets.length > 1 ? { at: now, of: targets.length } : undefined;
      for (const t of targets) {
        const job = { ...jobFor(row, now, t.location, id), ...(parallel ? { parallel } : {}) };
        queued.push({ job, accountId: row.account_id, queueKey: t.queueKey, queuedAt: now, leasedBy: null, leaseExpiresAt: 0 });
      }
    }
    if (queued.length) await this.jobs.addUrgent(queued);
    return sessions;
  }

  /**
   * Runs a check now and waits (up to waitMs) for its session to end: what a trigger URL
   * answers. Past the wait it answers with the session still running, which counts as failed.
   */
  async runToEnd(row: CheckRow, waitMs: number) {
    const [session] = await this.start([row], 'TRIGGER_API');
    const done = await this.waitFinal(row.account_id, session.id, waitMs);
    const final = done && done !== 'missing' ? done : session;
    const view = await this.view(final);
    const passed = final.status === 'PASSED' || final.status === 'DEGRADED';
    return {
      hasFailures: !passed,
      responseTime: view.results.reduce((m, r) => Math.max(m, r.responseTime ?? 0), 0),
      checkSessionId: final.id,
      status: final.status,
    };
  }

  /**
   * At start: a session left open whose runs are all gone (the service stopped between its
   * results and its final status, or its runs were lost) ends now, with the verdict over the
   * results it has, or TIMED_OUT when some never came.
   */
  async recover(): Promise<void> {
    const running = this.jobs.sessionsWithRuns();
    for (const s of await this.store.open()) {
      if (running.has(s.id)) continue;
      const results = await this.store.outcomes(s.id);
      const status =
        results.length >= s.run_locations.length
          ? sessionStatus(results.map((r) => ({ hasFailures: r.has_failures, isDegraded: r.is_degraded })))
          : 'TIMED_OUT';
      this.log.warn({ sessionId: s.id, status }, 'check session left open by the last run of the service: ended');
      await this.finish(s.id, status);
    }
  }

  async get(accountId: string, id: string): Promise<SessionRow | null> {
    return this.store.get(id, accountId);
  }

  /** Resolves with the session once final, or with null when maxMs passes first. */
  async waitFinal(accountId: string, id: string, maxMs: number): Promise<SessionRow | null | 'missing'> {
    const s = await this.get(accountId, id);
    if (!s) return 'missing';
    if (FINAL.has(s.status)) return s;
    return new Promise((resolve) => {
      const done = (row: SessionRow | null) => {
        clearTimeout(timer);
        this.events.off(id, onFinal);
        resolve(row);
      };
      const onFinal = (row: SessionRow) => done(row);
      const timer = setTimeout(() => done(null), maxMs);
      this.events.on(id, onFinal);
      // It may have turned final between the read and the subscription.
      void this.get(accountId, id).then((again) => again && FINAL.has(again.status) && done(again));
    });
  }

  async cancel(accountId: string, id: string): Promise<SessionRow | null> {
    const s = await this.get(accountId, id);
    if (!s) return null;
    if (FINAL.has(s.status)) return s;
    const ids = new Set(s.run_locations.map((loc) => jobId(s.check_id, s.started_at.getTime(), loc, s.id)));
    await this.jobs.withdrawJobs(ids);
    return this.finish(s.id, 'CANCELLED');
  }

  async view(s: SessionRow) {
    const results = await this.store.results(s.id);
    const started = s.started_at.getTime();
    return {
      checkSessionId: s.id,
      checkSessionLink: this.link(s.id),
      checkId: s.check_id,
      checkType: s.check_type,
      name: s.name,
      status: s.status,
      startedAt: s.started_at.toISOString(),
      stoppedAt: s.stopped_at ? s.stopped_at.toISOString() : null,
      timeElapsed: (s.stopped_at ? s.stopped_at.getTime() : Date.now()) - started,
      runLocations: s.run_locations,
      runSource: s.run_source,
      results: results.map((r) => ({
        checkResultId: r.id,
        checkResultLink: `${this.link(s.id)}/results/${r.id}`,
        checkId: r.check_id,
        checkType: r.check_type,
        name: r.name,
        runLocation: r.run_location,
        resultType: r.result_type,
        hasErrors: r.has_errors,
        hasFailures: r.has_failures,
        isDegraded: Boolean(r.is_degraded),
        aborted: false,
        isCancelled: false,
        responseTime: r.response_time,
        startedAt: r.started_at.toISOString(),
        stoppedAt: r.stopped_at.toISOString(),
      })),
    };
  }

  private async stored(batch: { r: RunResult; q: QueuedJob }[]): Promise<void> {
    for (const id of new Set(batch.map(({ q }) => q.job.sessionId).filter((x): x is string => !!x))) {
      const s = await this.store.get(id);
      if (!s || FINAL.has(s.status)) continue;
      const results = await this.store.outcomes(id);
      if (results.length >= s.run_locations.length) {
        await this.finish(id, sessionStatus(results.map((r) => ({ hasFailures: r.has_failures, isDegraded: r.is_degraded }))));
      } else if (s.status === 'STARTED') {
        await this.store.markInProgress(id);
      }
    }
  }

  private async dropped(jobs: QueuedJob[]): Promise<void> {
    for (const id of new Set(jobs.map((q) => q.job.sessionId).filter((x): x is string => !!x))) {
      this.log.warn({ sessionId: id }, 'check session timed out: no agent picked up its run');
      await this.finish(id, 'TIMED_OUT');
    }
  }

  private async finish(id: string, status: string): Promise<SessionRow> {
    const final = await this.store.finish(id, status);
    this.events.emit(id, final);
    return final;
  }
}
