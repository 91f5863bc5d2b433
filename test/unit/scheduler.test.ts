// The scheduler: a check's runs come due at its phase in the right queues, how far it has
// dispatched is written with them, and after downtime the latest fresh run is made and the rest counted.
// Real embedded store and job queue, a clock the test sets.

import { afterEach, describe, expect, it } from 'vitest';
import { counter, queueFixture, resultOf, UNCLAIMED_TTL_MS, type QueueFixture } from '../helpers/queue-fixture.js';
import type { Job } from '../../src/domain/run.js';
import { Scheduler } from '../../src/service/scheduler.js';
import { lastDue, nextDue, periodMs, phaseMs } from '../../src/domain/schedule.js';
import type { JobQueue } from '../../src/service/jobs.js';

let fx: QueueFixture;
const schedulers: Scheduler[] = [];
afterEach(async () => {
  for (const s of schedulers.splice(0)) await s.stop();
  await fx?.close();
});

function scheduler(queue: JobQueue = fx.queue) {
  const s = new Scheduler(fx.store, queue, fx.log, fx.metrics, UNCLAIMED_TTL_MS, fx.clock);
  schedulers.push(s);
  return s;
}

/** Waits (by long-poll, not by sleeping) for the jobs a queue hands out. */
function awaitJobs(queue: JobQueue, queueKeys: string[]) {
  return queue.lease({ agentId: 'agent', queueKeys, keyId: null }, 10, 10_000, new AbortController().signal);
}

/** Checks a and b, due at 0 s and 6 s past each minute; returns a's next due time (b's follows 6 s later). */
async function twoChecksSixSecondsApart(): Promise<number> {
  fx = await queueFixture();
  const s = scheduler();
  await s.start();
  const a = await fx.check('a', { frequency: 1, frequencyOffset: 1 });
  const b = await fx.check('b', { frequency: 1, frequencyOffset: 2 });
  // Past b's time this minute: the next runs are a's, then b's.
  fx.clock.advance(7000);
  await s.upsert(a);
  await s.upsert(b);
  return nextDue(fx.clock.now(), periodMs(a.config), 0);
}

describe('scheduler', () => {
  it('queues a run at its due time in every location, and writes the next due time with it', async () => {
    fx = await queueFixture();
    const s = scheduler();
    await s.start();
    const row = await fx.check('c1', { frequency: 1, frequencyOffset: 5, locations: ['us-east-1', 'eu-west-1'], runParallel: true });
    const period = periodMs(row.config);
    const phase = phaseMs(row.id, row.config);
    expect(phase).toBe(24_000);
    const due = nextDue(fx.clock.now(), period, phase);
    await s.upsert(row);
    expect(fx.queue.pendingCount()).toBe(0);
    fx.clock.set(due);
    const east = await awaitJobs(fx.queue, ['dc:us-east-1']);
    const west = await awaitJobs(fx.queue, ['dc:eu-west-1']);
    expect(east).toMatchObject([{ id: `${due}:c1:us-east-1`, dueAt: due, checkType: 'TCP' }]);
    expect(west).toMatchObject([{ id: `${due}:c1:eu-west-1`, dueAt: due }]);
    await s.stop();
    // Everything due up to the run is out: the next one follows from the check's schedule.
    const through = (await fx.store.jobs.dispatchedThrough())!;
    expect(through).toBeGreaterThanOrEqual(due);
    expect(nextDue(through, period, phase)).toBe(due + period);
    expect((await fx.store.jobs.load()).map((j) => j.job_id).sort()).toEqual([`${due}:c1:eu-west-1`, `${due}:c1:us-east-1`]);
  });

  it('writes how far it has dispatched at most every 8 s while agents report every run in time', async () => {
    const d = await twoChecksSixSecondsApart();
    const written = async () => {
      await fx.queue.after(async () => {});
      return fx.store.jobs.dispatchedThrough();
    };
    const runAndReport = async (tick: number) => {
      fx.clock.set(tick);
      const jobs = (await awaitJobs(fx.queue, ['dc:us-east-1'])) as Job[];
      await fx.queue.complete(
        jobs.map((j) => resultOf(j, tick)),
        ['dc:us-east-1'],
      );
      return jobs;
    };
    expect(await runAndReport(d - 1000)).toMatchObject([{ checkId: 'a', dueAt: d }]);
    fx.clock.set(d);
    expect(await written()).toBe(d);
    expect(await runAndReport(d + 5000)).toMatchObject([{ checkId: 'b', dueAt: d + 6000 }]);
    fx.clock.set(d + 6000);
    // Both runs are in: nothing needs a row, and the time waits.
    expect(await written()).toBe(d);
    expect(await fx.store.jobs.load()).toEqual([]);
    fx.clock.set(d + 8000);
    expect(await written()).toBe(d + 6000);
  });

  it('writes a run not reported by the next tick at once, with how far it has dispatched', async () => {
    const d = await twoChecksSixSecondsApart();
    fx.clock.set(d - 1000);
    await awaitJobs(fx.queue, ['dc:us-east-1']);
    fx.clock.set(d);
    await fx.queue.after(async () => {});
    fx.clock.set(d + 5000);
    await awaitJobs(fx.queue, ['dc:us-east-1']);
    fx.clock.set(d + 6000);
    await fx.queue.after(async () => {});
    expect(await fx.store.jobs.dispatchedThrough()).toBe(d + 6000);
    expect((await fx.store.jobs.load()).map((j) => j.job_id).sort()).toEqual([`${d}:a:us-east-1`, `${d + 6000}:b:us-east-1`]);
  });

  it('hands a run out at the tick before it is due, so an agent can start it on time', async () => {
    fx = await queueFixture();
    const s = scheduler();
    await s.start();
    const row = await fx.check('c1', { frequency: 1, frequencyOffset: 5 });
    const due = nextDue(fx.clock.now(), periodMs(row.config), phaseMs(row.id, row.config));
    await s.upsert(row);
    fx.clock.set(due - 1001);
    expect(fx.queue.pendingCount()).toBe(0);
    fx.clock.set(due - 1000);
    expect(await awaitJobs(fx.queue, ['dc:us-east-1'])).toMatchObject([{ dueAt: due }]);
  });

  it('rotates through locations one run at a time unless runParallel', async () => {
    fx = await queueFixture();
    const s = scheduler();
    await s.start();
    const row = await fx.check('c1', { frequency: 1, frequencyOffset: 1, locations: ['us-east-1', 'eu-west-1'] });
    const period = periodMs(row.config);
    const first = nextDue(fx.clock.now(), period, 0);
    await s.upsert(row);
    fx.clock.set(first);
    const one = (await awaitJobs(fx.queue, ['dc:us-east-1', 'dc:eu-west-1'])) as Job[];
    // Reported, as an agent would: an unreported run's lease expires and it is dispatched again.
    await fx.queue.complete([resultOf(one[0], first)], ['dc:us-east-1', 'dc:eu-west-1']);
    fx.clock.set(first + period);
    const two = (await awaitJobs(fx.queue, ['dc:us-east-1', 'dc:eu-west-1'])) as Job[];
    expect(one).toHaveLength(1);
    expect(two).toHaveLength(1);
    expect(new Set([one[0].location, two[0].location])).toEqual(new Set(['us-east-1', 'eu-west-1']));
  });

  it('after downtime makes the latest missed run if still fresh, and counts the others', async () => {
    fx = await queueFixture();
    const row = await fx.check('c1', { frequency: 1, frequencyOffset: 1 });
    const period = periodMs(row.config);
    const stored = nextDue(fx.clock.now(), period, 0);
    // Dispatched through the run before `stored`: `stored` is the next due time.
    await fx.store.jobs.queueRuns([], stored - 1);
    fx.clock.set(stored + 3 * period + 1000);
    const s = scheduler();
    await s.start();
    const latest = lastDue(fx.clock.now(), period, 0);
    expect(await awaitJobs(fx.queue, ['dc:us-east-1'])).toMatchObject([{ id: `${latest}:c1:us-east-1` }]);
    expect(await counter(fx.metrics, 'outpost_runs_dropped_total', { reason: 'service_down' })).toBe(3);
  });

  it('counts no run missed from before a check existed', async () => {
    fx = await queueFixture();
    const t0 = fx.clock.now();
    await fx.store.jobs.queueRuns([], t0);
    // Nothing was due for an hour; then a check was made, and the service was down over two of
    // its due times.
    fx.clock.set(t0 + 3_600_000);
    const row = await fx.check('c1', { frequency: 1, frequencyOffset: 1 });
    const period = periodMs(row.config);
    fx.clock.set(t0 + 3_600_000 + 2 * period + 1000);
    const s = scheduler();
    await s.start();
    expect(await awaitJobs(fx.queue, ['dc:us-east-1'])).toMatchObject([{ dueAt: t0 + 3_600_000 + 2 * period }]);
    expect(await counter(fx.metrics, 'outpost_runs_dropped_total', { reason: 'service_down' })).toBe(1);
  });

  it('makes no run that would be staler than the pick-up window', async () => {
    fx = await queueFixture();
    // Every 10 minutes: after downtime the latest due time can lie further back than the window.
    const row = await fx.check('c1', { frequency: 10, frequencyOffset: 1 });
    const period = periodMs(row.config);
    const stored = nextDue(fx.clock.now(), period, 0);
    await fx.store.jobs.queueRuns([], stored - 1);
    fx.clock.set(stored + 2 * period + UNCLAIMED_TTL_MS + 1000);
    const s = scheduler();
    await s.start();
    expect(fx.queue.pendingCount()).toBe(0);
    expect(await counter(fx.metrics, 'outpost_runs_dropped_total', { reason: 'service_down' })).toBe(3);
    // The next run comes at its usual time.
    fx.clock.set(stored + 3 * period);
    expect(await awaitJobs(fx.queue, ['dc:us-east-1'])).toMatchObject([{ dueAt: stored + 3 * period }]);
  });

  it('schedules nothing for a deactivated check and withdraws its queued runs', async () => {
    fx = await queueFixture();
    const s = scheduler();
    await s.start();
    const row = await fx.check('c1', { frequency: 1, frequencyOffset: 1 });
    await s.upsert(row);
    fx.clock.set(nextDue(fx.clock.now(), periodMs(row.config), 0));
    expect(fx.queue.pendingCount()).toBe(1);
    const off = await fx.store.checks.update('c1', fx.accountId, { ...row.config, activated: false });
    await s.upsert(off!);
    expect(fx.queue.pendingCount()).toBe(0);
    fx.clock.advance(periodMs(row.config));
    expect(fx.queue.pendingCount()).toBe(0);
  });
});
