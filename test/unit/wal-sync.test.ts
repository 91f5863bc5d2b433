// The embedded store's log sync: nobody hears that a write is stored before a sync that began
// after its commit has finished, writes that wait for a running sync ride on the next one, and
// after a failed sync nothing reports success again.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { walSyncer } from '../../src/service/store/db.js';

/** A log file, and an fdatasync whose calls finish only when the test says so. */
function heldSyncs() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-wal-'));
  const log = path.join(dir, 'outpost.db-wal');
  fs.writeFileSync(log, 'frames');
  const calls: ((err: NodeJS.ErrnoException | null) => void)[] = [];
  const fdatasync = ((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
    expect(fs.fstatSync(fd).ino).toBe(fs.statSync(log).ino);
    calls.push(cb);
  }) as typeof fs.fdatasync;
  return { log, calls, fdatasync };
}

/** Which of the promises have settled, after pending callbacks ran. */
async function settled(ps: Promise<unknown>[]): Promise<string[]> {
  const seen = ps.map(() => 'pending');
  ps.forEach((p, i) =>
    p.then(
      () => (seen[i] = 'done'),
      () => (seen[i] = 'failed'),
    ),
  );
  await new Promise((r) => setImmediate(r));
  return seen;
}

describe('the log sync', () => {
  it('answers a caller only after a sync that began after its call, and shares syncs among waiters', async () => {
    const { log, calls, fdatasync } = heldSyncs();
    const durable = walSyncer(log, fdatasync);
    const first = durable();
    expect(calls).toHaveLength(1);
    // Committed while the first sync runs: that sync may have missed these frames.
    const second = durable();
    const third = durable();
    expect(calls).toHaveLength(1);
    expect(await settled([first, second, third])).toEqual(['pending', 'pending', 'pending']);

    calls[0](null);
    expect(await settled([first, second, third])).toEqual(['done', 'pending', 'pending']);
    // One sync for both callers that waited.
    expect(calls).toHaveLength(2);
    calls[1](null);
    expect(await settled([second, third])).toEqual(['done', 'done']);
    await durable.close();
  });

  it('runs what waits for the next sync just before that sync begins', async () => {
    const { log, calls, fdatasync } = heldSyncs();
    const durable = walSyncer(log, fdatasync);
    const order: string[] = [];
    void durable();
    expect(durable.syncing()).toBe(true);
    let rode: Promise<void> | null = null;
    durable.beforeNextSync(() => {
      order.push(`commit while ${calls.length} syncs began`);
      rode = durable();
    });
    expect(order).toEqual([]);
    calls[0](null);
    expect(order).toEqual(['commit while 1 syncs began']);
    expect(calls).toHaveLength(2);
    calls[1](null);
    expect(await settled([rode!])).toEqual(['done']);
    expect(durable.syncing()).toBe(false);
    await durable.close();
  });

  it('fails every sync after one fails, so a loss is never reported as stored', async () => {
    const { log, calls, fdatasync } = heldSyncs();
    const durable = walSyncer(log, fdatasync);
    const first = durable();
    const second = durable();
    calls[0](Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }));
    await expect(first).rejects.toMatchObject({ code: 'OUTPOST_STORE_REFUSED', message: expect.stringContaining('EIO') });
    // The sync the second caller waits for would report success over the lost frames.
    await expect(second).rejects.toMatchObject({ code: 'OUTPOST_STORE_REFUSED' });
    await expect(durable()).rejects.toMatchObject({ code: 'OUTPOST_STORE_REFUSED' });
    expect(calls).toHaveLength(1);
    await durable.close();
  });
});
