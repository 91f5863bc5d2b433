// The job queue: who gets which job, when a lease runs out, when a run is given up, and what a
// restart brings back. Real embedded store, a clock the test sets.

import { afterEach, describe, expect, it } from 'vitest';
import { jobFor } from '../../src/service/store/checks.js';
import { counter, LEASE_MS, leaseNow, queueFixture, resultOf, UNCLAIMED_TTL_MS, type QueueFixture } from '../helpers/queue-fixture.js';
import type { Job } from '../../src/domain/run.js';

let fx: QueueFixture;
afterEach(async () => {
  await fx?.close();
});

const ids = (jobs: Job[] | 'revoked') => (jobs === 'revoked' ? [] : jobs.map((j) => j.id));

describe('job queue', () => {
  it('hands each job to one agent, round-robin over its queues, never more than asked', async () => {
    fx = await queueFixture();
    const c = await fx.check('c1');
    const t = fx.clock.now();
    const a = [0, 1, 2].map((i) => fx.queued(c, t + i, 'us-east-1'));
    const b = fx.queued(c, t, 'eu-west-1');
    fx.queue.add([...a, b]);
    expect(ids(await leaseNow(fx.queue, 'agent-1', ['dc:us-east-1', 'dc:eu-west-1'], 3))).toEqual([a[0].job.id, b.job.id, a[1].job.id]);
    expect(ids(await leaseNow(fx.queue, 'agent-2', ['dc:us-east-1', 'dc:eu-west-1'], 3))).toEqual([a[2].job.id]);
    expect(ids(await leaseNow(fx.queue, 'agent-3', ['dc:us-east-1', 'dc:eu-west-1'], 3))).toEqual([]);
    expect(fx.queue.leased(a[0].job.id, 'agent-1')).not.toBeNull();
    expect(fx.queue.leased(a[0].job.id, 'agent-2')).toBeNull();
  });

  it('gives an agent no more browser jobs than it has browser slots', async () => {
    fx = await queueFixture();
    const c = await fx.check('c1');
    const t = fx.clock.now();
    fx.queue.add([0, 1, 2].map((i) => fx.queued(c, t + i, 'us-east-1', 'dc:us-east-1#rt:2026.04')));
    fx.queue.add([fx.queued(c, t + 10, 'us-east-1')]);
    const jobs = await leaseNow(fx.queue, 'agent-1', ['dc:us-east-1#rt:2026.04', 'dc:us-east-1'], 10, {
      browserKeys: new Set(['dc:us-east-1#rt:2026.04']),
      maxBrowser: 1,
    });
    expect(ids(jobs)).toHaveLength(2);
    expect(fx.queue.pendingCount()).toBe(2);
  });

  it('answers a waiting lease as soon as a job arrives', async () => {
    fx = await queueFixture();
    const c = await fx.check('c1');
    const waiting = fx.queue.lease(
      { agentId: 'agent-1', queueKeys: ['dc:us-east-1'], keyId: null },
      5,
      60_000,
      new AbortController().signal,
    );
    const q = fx.queued(c, fx.clock.now(), 'us-east-1');
    fx.queue.add([q]);
    expect(ids(await waiting)).toEqual([q.job.id]);
  });

  it('re-dispatches a job whose agent stopped renewing its lease, not one it renews', async () => {
    fx = await queueFixture();
    const c = await fx.check('c1');
    const q = fx.queued(c, fx.clock.now(), 'us-east-1');
    fx.queue.add([q]);
    await leaseNow(fx.queue, 'agent-1', ['dc:us-east-1']);
    fx.clock.advance(LEASE_MS - 1000);
    fx.queue.extend('agent-1', [q.job.id]);
    fx.clock.advance(LEASE_MS - 1000);
    await fx.queue.sweep();
    expect(ids(await leaseNow(fx.queue, 'agent-2', ['dc:us-east-1']))).toEqual([]);
    fx.clock.advance(2000);
    await fx.queue.sweep();
    expect(ids(await leaseNow(fx.queue, 'agent-2', ['dc:us-east-1']))).toEqual([q.job.id]);
    expect(fx.queue.leased(q.job.id, 'agent-1')).toBeNull();
    expect(await counter(fx.metrics, 'outpost_jobs_redispatched_total')).toBe(1);
  });

  it('keeps the lease of a job its agent reports every third of a lease, and a restart finds it renewed', async () => {
    fx = await queueFixture();
    const c = await fx.check('c1');
    const q = fx.queued(c, fx.clock.now(), 'us-east-1');
    await fx.queue.addUrgent([q]);
    await leaseNow(fx.queue, 'agent-1', ['dc:us-east-1']);
    const leasedUntil = q.leaseExpiresAt;
    // A report right after the lease renews nothing: the lease is as it was.
    fx.clock.advance(1000);
    fx.queue.extend('agent-1', [q.job.id]);
    expect(q.leaseExpiresAt).toBe(leasedUntil);
    // Reported a little less often than every third of a lease, for five leases' time.
    for (let i = 0; i < 15; i++) {
      fx.clock.advance(LEASE_MS / 3 + 100);
      fx.queue.extend('agent-1', [q.job.id]);
      await fx.queue.sweep();
      expect(fx.queue.leased(q.job.id, 'agent-1')).not.toBeNull();
    }
    expect(q.leaseExpiresAt).toBeGreaterThan(leasedUntil);
    // What a restart finds is the renewed lease.
    expect(await counter(fx.metrics, 'outpost_jobs_redispatched_total')).toBe(0);
    await fx.queue.stop();
    const after = await fx.reopen();
    expect(after.leased(q.job.id, 'agent-1')?.leaseExpiresAt).toBe(q.leaseExpiresAt);
  });

  it('drops a run no agent takes within the pick-up window, and forgets it for good', async () => {
    fx = await queueFixture();
    const c = await fx.check('c1');
    const q = fx.queued(c, fx.clock.now(), 'us-east-1');
    await fx.queue.addUrgent([q]);
    fx.clock.advance(UNCLAIMED_TTL_MS - 1);
    await fx.queue.sweep();
    expect(fx.queue.pendingCount()).toBe(1);
    fx.clock.advance(2);
    await fx.queue.sweep();
    expect(fx.queue.pendingCount()).toBe(0);
    expect(await counter(fx.metrics, 'outpost_runs_dropped_total', { reason: 'unclaimed' })).toBe(1);
    expect(fx.logs.some((l) => l.msg.startsWith('runs dropped') && l.count === 1)).toBe(true);
    // Gone from the database too: a restart does not bring it back.
    const after = await fx.reopen();
    expect(after.pendingCount()).toBe(0);
  });

  it('stores a result once, ignores results from another location, and a restart keeps open leases', async () => {
    fx = await queueFixture();
    const c = await fx.check('c1');
    const t = fx.clock.now();
    const done = fx.queued(c, t, 'us-east-1');
    const open = fx.queued(c, t + 1, 'us-east-1');
    await fx.queue.addUrgent([done, open]);
    expect(ids(await leaseNow(fx.queue, 'agent-1', ['dc:us-east-1'])).sort()).toEqual([done.job.id, open.job.id].sort());

    const r = resultOf(done.job, t + 10);
    expect(await fx.queue.complete([r], ['dc:eu-west-1'])).toEqual([done.job.id]);
    expect(await fx.queue.complete([r, r], ['dc:us-east-1'])).toEqual([done.job.id]);
    expect(await fx.queue.complete([r], ['dc:us-east-1'])).toEqual([done.job.id]);
    const stored = await fx.store.results.page(
      { checkId: 'c1', accountId: fx.accountId, fromMs: t - 1000, toMs: t + 60_000, resultType: 'ALL' },
      10,
      0,
    );
    expect(stored.map((s) => s.job_id)).toEqual([done.job.id]);

    await fx.queue.stop();
    const after = await fx.reopen();
    expect(after.leased(open.job.id, 'agent-1')).not.toBeNull();
    expect(after.leased(done.job.id, 'agent-1')).toBeNull();
    expect(after.pendingCount()).toBe(0);
  });

  it("keeps a check session's run, and its session, across a restart", async () => {
    fx = await queueFixture();
    const c = await fx.check('c1');
    const t = fx.clock.now();
    const run = { ...fx.queued(c, t, 'us-east-1'), job: jobFor(c, t, 'us-east-1', 'session-1') };
    await fx.queue.addUrgent([run]);
    await fx.queue.stop();
    const after = await fx.reopen();
    const [job] = await leaseNow(after, 'agent-1', ['dc:us-east-1']);
    expect(job).toMatchObject({ id: run.job.id, sessionId: 'session-1' });
    expect(after.sessionsWithRuns()).toEqual(new Set(['session-1']));
  });
});
