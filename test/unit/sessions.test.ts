// Check sessions left open when the service stopped: at the next start, each whose runs are
// gone ends with the verdict over its results, or TIMED_OUT; one with runs still queued waits.
// Real embedded store and job queue.

import { afterEach, describe, expect, it } from 'vitest';
import { queueFixture, resultOf, UNCLAIMED_TTL_MS, type QueueFixture } from '../helpers/queue-fixture.js';
import { Sessions } from '../../src/service/sessions.js';
import { Scheduler } from '../../src/service/scheduler.js';
import { jobFor } from '../../src/service/store/checks.js';

let fx: QueueFixture;
afterEach(async () => {
  await fx?.close();
});

describe('check sessions at start', () => {
  it('end those whose runs are gone, and leave those with runs queued', async () => {
    fx = await queueFixture();
    const c = await fx.check('c1');
    const t = fx.clock.now();
    const open = (id: string, runLocations: string[]) =>
      fx.store.sessions.insert({
        id,
        accountId: fx.accountId,
        checkId: 'c1',
        checkType: 'TCP',
        name: 'c1',
        runSource: 'TRIGGER_API',
        runLocations,
        startedAt: t,
      });
    await open('lost', ['us-east-1']);
    await open('reported', ['us-east-1']);
    await open('waiting', ['us-east-1']);
    // "reported" has its result (the service stopped before it wrote the final status).
    const job = jobFor(c, t, 'us-east-1', 'reported');
    await fx.store.results.store([{ result: resultOf(job, t), accountId: fx.accountId, job }], []);
    // "waiting" still has its run in the queue.
    await fx.queue.addUrgent([{ ...fx.queued(c, t, 'us-east-1'), job: jobFor(c, t, 'us-east-1', 'waiting') }]);

    const scheduler = new Scheduler(fx.store, fx.queue, fx.log, fx.metrics, UNCLAIMED_TTL_MS, fx.clock);
    const sessions = new Sessions(fx.store.sessions, fx.queue, scheduler, fx.log, (id) => `/v2/check-sessions/${id}`);
    await sessions.recover();

    expect((await fx.store.sessions.get('lost'))?.status).toBe('TIMED_OUT');
    expect((await fx.store.sessions.get('reported'))?.status).toBe('PASSED');
    expect((await fx.store.sessions.get('waiting'))?.status).toBe('STARTED');
  });
});
