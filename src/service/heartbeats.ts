// Heartbeat checks are passive: the monitored job pings the service, and the service notices
// silence. Each ping and each missed deadline (period + grace) is a result; after a miss the
// next deadline is one period later, so a job that stays silent keeps failing, and the next
// ping recovers it.

import { storeJudged, type AlertEngine } from './alerting.js';
import { randomUUID } from 'node:crypto';
import type { Repositories } from './store/index.js';
import type { Logger } from '../log.js';
import type { CheckRow } from './store/checks.js';
import type { ServiceMetrics } from './metrics.js';

export const HEARTBEAT_LOCATION = 'heartbeat';
const UNIT_MS: Record<string, number> = { seconds: 1000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

export interface HeartbeatSpec {
  period: number;
  periodUnit: string;
  grace: number;
  graceUnit: string;
  pingToken?: string | null;
}

export const periodOf = (h: HeartbeatSpec) => h.period * UNIT_MS[h.periodUnit];
export const graceOf = (h: HeartbeatSpec) => h.grace * UNIT_MS[h.graceUnit];

interface Watched {
  row: CheckRow;
  since: number;
  timer: NodeJS.Timeout | null;
}

export class HeartbeatMonitor {
  private watched = new Map<string, Watched>();

  constructor(
    private store: Pick<Repositories, 'heartbeats' | 'results' | 'tx'>,
    private log: Logger,
    private metrics: ServiceMetrics,
  ) {}

  /** Judges heartbeat results for alerting as they are stored (none: results only). */
  alerts: AlertEngine | null = null;

  async start(): Promise<void> {
    const rows = await this.store.heartbeats.watched();
    for (const r of rows) this.watch(r, r.since);
  }

  stop(): void {
    for (const w of this.watched.values()) if (w.timer) clearTimeout(w.timer);
    this.watched.clear();
  }

  /** After create or update: (re)starts the deadline; a deactivated check is not watched. */
  async upsert(row: CheckRow): Promise<void> {
    const token = (row.config.heartbeat as HeartbeatSpec).pingToken!;
    const now = Date.now();
    await this.store.heartbeats.upsert(row.id, token, now);
    const prev = this.watched.get(row.id);
    if (prev?.timer) clearTimeout(prev.timer);
    this.watched.delete(row.id);
    if (!row.activated) return;
    // Reactivation starts a fresh wait: silence while deactivated is not a miss.
    const since = prev ? prev.since : now;
    if (!prev) await this.store.heartbeats.setSince(row.id, since);
    this.watch(row, since);
  }

  remove(checkId: string): void {
    const w = this.watched.get(checkId);
    if (w?.timer) clearTimeout(w.timer);
    this.watched.delete(checkId);
  }

  /** A ping: a passing result, and the deadline starts again. False when the token is unknown. */
  async ping(token: string, how: { method: string; source: string | undefined }): Promise<boolean> {
    const hit = await this.store.heartbeats.checkByToken(token);
    if (!hit) return false;
    const now = Date.now();
    await this.record(hit, now, null, { method: how.method, source: how.source ?? null });
    await this.store.heartbeats.recordPing(hit.id, now);
    const w = this.watched.get(hit.id);
    if (w) {
      if (w.timer) clearTimeout(w.timer);
      this.watch(w.row, now);
    }
    return true;
  }

  private watch(row: CheckRow, since: number): void {
    const h = row.config.heartbeat as HeartbeatSpec;
    const deadline = since + periodOf(h) + graceOf(h);
    const w: Watched = { row, since, timer: null };
    this.watched.set(row.id, w);
    // Timers past ~24.8 days overflow: wake up daily and look again.
    const wait = Math.min(Math.max(0, deadline - Date.now()), 86_400_000);
    w.timer = setTimeout(
      () => void this.check(row.id, deadline).catch((err) => this.log.error({ err, checkId: row.id }, 'heartbeat check failed')),
      wait,
    );
    w.timer.unref();
  }

  private async check(checkId: string, deadline: number): Promise<void> {
    const w = this.watched.get(checkId);
    if (!w) return;
    const now = Date.now();
    if (now < deadline) return this.watch(w.row, w.since);
    const h = w.row.config.heartbeat as HeartbeatSpec;
    const error = `no ping within period + grace (${(periodOf(h) + graceOf(h)) / 1000} s)`;
    // The next deadline counts one period from this miss.
    const nextSince = now - graceOf(h);
    await this.record(w.row, now, error, null);
    await this.store.heartbeats.setSince(checkId, nextSince);
    if (this.watched.get(checkId) === w) this.watch(w.row, nextSince);
  }

  private async record(
    row: CheckRow,
    at: number,
    error: string | null,
    ping: { method: string; source: string | null } | null,
  ): Promise<void> {
    const kind = ping ? 'ping' : 'miss';
    // A missed ping alerts like any failed run (heartbeats never retry).
    await storeJudged(
      this.store,
      this.alerts,
      [
        {
          accountId: row.account_id,
          job: {
            id: `${row.id}:${at}:${kind}`,
            checkId: row.id,
            checkType: 'HEARTBEAT',
            location: HEARTBEAT_LOCATION,
            dueAt: at,
            timeoutMs: 0,
            check: { name: row.config.name, request: {}, degradedResponseTime: null, maxResponseTime: null, shouldFail: false },
          },
          result: {
            jobId: `${row.id}:${at}:${kind}:${randomUUID()}`,
            checkId: row.id,
            location: HEARTBEAT_LOCATION,
            dueAt: at,
            startedAt: at,
            stoppedAt: at,
            responseTime: 0,
            hasFailures: error !== null,
            hasErrors: false,
            isDegraded: false,
            overMaxResponseTime: false,
            error,
            detail: { heartbeatCheckResult: { event: kind, ...(ping ? { method: ping.method, source: ping.source } : {}), error } },
          },
        },
      ],
      [],
    );
    this.metrics.resultsStored.inc();
  }
}
