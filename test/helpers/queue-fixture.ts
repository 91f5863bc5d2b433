// A job queue over a real embedded store, with a clock the test sets: what the queue and
// scheduler unit tests start from.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { openStore, type Store } from '../../src/service/store/index.js';
import { jobFor, type CheckConfig, type CheckRow } from '../../src/service/store/checks.js';
import { JobQueue, type QueuedJob } from '../../src/service/jobs.js';
import { serviceMetrics } from '../../src/service/metrics.js';
import { createLogger } from '../../src/log.js';
import type { RunResult } from '../../src/domain/run.js';
import type { Clock } from '../../src/service/clock.js';

export const LEASE_MS = 30_000;
export const UNCLAIMED_TTL_MS = 360_000;

/** Time as the test sets it; timers fire when it is moved past them. */
export class TestClock implements Clock {
  private timers = new Set<{ at: number; fn: () => void }>();
  constructor(private t = Date.UTC(2026, 10, 23, 12, 0, 0)) {}
  now() {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number) {
    const timer = { at: this.t + ms, fn };
    this.timers.add(timer);
    // Already due: fires soon, as a real timer would, without waiting for the clock to move.
    if (ms <= 0) setImmediate(() => this.timers.delete(timer) && fn());
    return timer;
  }
  clearTimeout(timer: unknown) {
    this.timers.delete(timer as { at: number; fn: () => void });
  }
  set(t: number) {
    this.t = t;
    for (const timer of [...this.timers].sort((a, b) => a.at - b.at)) {
      if (timer.at > t) continue;
      this.timers.delete(timer);
      timer.fn();
    }
  }
  advance(ms: number) {
    this.set(this.t + ms);
  }
}

export interface QueueFixture {
  store: Store;
  dir: string;
  accountId: string;
  clock: TestClock;
  metrics: ReturnType<typeof serviceMetrics>;
  log: ReturnType<typeof createLogger>;
  logs: Record<string, any>[];
  queue: JobQueue;
  /** A queue over the same store, as after a service restart. */
  reopen(): Promise<JobQueue>;
  check(id: string, config?: Partial<CheckConfig>): Promise<CheckRow>;
  queued(row: CheckRow, dueAt: number, location: string, queueKey?: string): QueuedJob;
  close(): Promise<void>;
}

export async function queueFixture(): Promise<QueueFixture> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-queue-'));
  const store = await openStore({ dataDir: dir });
  const { accountId } = await store.accounts.bootstrap({ apiKey: 'k-0123456789' });
  const clock = new TestClock();
  const metrics = serviceMetrics();
  const logs: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const log = createLogger('test', 'INFO', sink);
  const queues: JobQueue[] = [];
  const open = async () => {
    const q = new JobQueue(store, log, metrics, { leaseMs: LEASE_MS, unclaimedTtlMs: UNCLAIMED_TTL_MS, clock });
    await q.load();
    queues.push(q);
    return q;
  };
  const fx: QueueFixture = {
    store,
    dir,
    accountId,
    clock,
    metrics,
    log,
    logs,
    queue: await open(),
    reopen: open,
    async check(id, config = {}) {
      const cfg = {
        name: id,
        activated: true,
        locations: ['us-east-1'],
        privateLocations: [],
        frequency: 1,
        frequencyOffset: null,
        runParallel: false,
        maxResponseTime: 5000,
        degradedResponseTime: 3000,
        shouldFail: false,
        request: { hostname: '127.0.0.1', port: 9 },
        ...config,
      } as CheckConfig;
      return store.checks.insert({
        id,
        account_id: accountId,
        check_type: 'TCP',
        name: id,
        activated: cfg.activated,
        config: cfg,
        created_at: new Date(clock.now()),
      });
    },
    queued(row, dueAt, location, queueKey = `dc:${location}`) {
      return { job: jobFor(row, dueAt, location), accountId, queueKey, queuedAt: clock.now(), leasedBy: null, leaseExpiresAt: 0 };
    },
    async close() {
      for (const q of queues) await q.stop();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return fx;
}

/** A lease that does not wait. */
export function leaseNow(
  queue: JobQueue,
  agentId: string,
  queueKeys: string[],
  max = 10,
  extra: { browserKeys?: Set<string>; maxBrowser?: number } = {},
) {
  return queue.lease({ agentId, queueKeys, keyId: null, ...extra }, max, 0, new AbortController().signal);
}

export function resultOf(
  job: { id: string; checkId: string; location: string; dueAt: number },
  at: number,
  hasFailures = false,
): RunResult {
  return {
    jobId: job.id,
    checkId: job.checkId,
    location: job.location,
    dueAt: job.dueAt,
    startedAt: at,
    stoppedAt: at + 5,
    responseTime: 5,
    hasFailures,
    hasErrors: false,
    isDegraded: false,
    overMaxResponseTime: false,
    error: null,
    detail: {},
  };
}

export async function counter(metrics: ReturnType<typeof serviceMetrics>, name: string, labels: Record<string, string> = {}) {
  const m = (await metrics.registry.getSingleMetric(name)!.get()).values.find((v) =>
    Object.entries(labels).every(([k, val]) => v.labels[k] === val),
  );
  return m?.value ?? 0;
}
