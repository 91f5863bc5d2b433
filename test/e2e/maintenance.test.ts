// Maintenance windows on `outpost start`: the API (ops 14 and 15 and the rest), checks paused by
// their tags or their group's, and alerts silenced inside a window and not told after it.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startService, eventually, runNow as runNowOn, type Service } from '../helpers/procs.js';
import { switchableTarget, type SwitchableTarget } from '../helpers/http-servers.js';
import { expectError } from '../helpers/api-error.js';

let svc: Service;
let target: SwitchableTarget;
beforeAll(async () => {
  target = await switchableTarget();
  svc = await startService({}, 'start');
});
afterAll(async () => {
  await svc?.stop();
  await target?.close();
});

const hour = 3600_000;
const iso = (t: number) => new Date(t).toISOString();
const windowNow = (extra: Record<string, unknown>) =>
  svc.api('POST', '/v1/maintenance-windows', {
    name: 'now',
    startsAt: iso(Date.now() - hour),
    endsAt: iso(Date.now() + hour),
    repeatUnit: 'DAY',
    ...extra,
  });

async function urlCheck(extra: Record<string, unknown>) {
  const res = await svc.api('POST', '/v1/checks/url', {
    name: 'maintained',
    locations: ['eu-west-1'],
    frequency: 0,
    frequencyOffset: 10,
    doubleCheck: false,
    request: { url: target.url },
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}
const resultCount = async (id: string) => (await svc.api('GET', `/v1/check-results/${id}?limit=100`)).body.length as number;

describe('maintenance windows', () => {
  it('are created, listed with filters, read, updated in part and deleted; bad ones refused', async () => {
    const sent = {
      name: 'db upgrade',
      startsAt: '2030-01-05T02:00:00.000Z',
      endsAt: '2030-01-05T04:00:00.000Z',
      repeatUnit: 'WEEK',
      repeatInterval: 2,
      repeatEndsAt: '2030-06-30',
      timezone: 'Europe/Berlin',
      tags: ['db'],
    };
    const made = await svc.api('POST', '/v1/maintenance-windows', sent);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({
      id: expect.any(Number),
      ...sent,
      pauseAllChecks: false,
      created_at: expect.any(String),
      updated_at: null,
    });
    const id = made.body.id;
    const once = (
      await svc.api('POST', '/v1/maintenance-windows', { name: 'once', startsAt: '2031-03-01', endsAt: '2031-03-02', repeatUnit: 'DAY' })
    ).body;
    expect(once).toMatchObject({ startsAt: '2031-03-01T00:00:00.000Z', repeatInterval: null });

    const names = async (q: string) => (await svc.api('GET', `/v1/maintenance-windows${q}`)).body.map((w: any) => w.name);
    expect(await names('?limit=100')).toEqual(expect.arrayContaining(['db upgrade', 'once']));
    expect(await names('?startsAt[gte]=2031-01-01')).toEqual(['once']);
    expect(await names('?startsAt[lt]=2031-01-01&endsAt[gt]=2030-01-05T03:00:00Z')).toEqual(['db upgrade']);
    expect(await names('?limit=1&page=2')).toHaveLength(1);
    expectError(await svc.api('GET', '/v1/maintenance-windows?limit=101'), 400, /limit/);
    expectError(await svc.api('GET', '/v1/maintenance-windows?startsAt[gte]=someday-or-other'), 400, /not a date/);

    expect((await svc.api('GET', `/v1/maintenance-windows/${id}`)).body.name).toBe('db upgrade');
    const put = await svc.api('PUT', `/v1/maintenance-windows/${id}`, { name: 'db upgrade v2', pauseAllChecks: true });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      name: 'db upgrade v2',
      pauseAllChecks: true,
      tags: ['db'],
      repeatInterval: 2,
      timezone: 'Europe/Berlin',
    });
    expect(put.body.updated_at).toEqual(expect.any(String));

    expectError(await svc.api('GET', '/v1/maintenance-windows/abc'), 400, /id/);
    expectError(await svc.api('GET', '/v1/maintenance-windows/999999'), 404, /Maintenance window 999999 not found/);
    expectError(await svc.api('POST', '/v1/maintenance-windows', { name: 'x', startsAt: '2030-01-01' }), 400, /endsAt/);
    expectError(await windowNow({ timezone: '+05:00' }), 400, /IANA time zone/);
    expectError(await windowNow({ endsAt: iso(Date.now() - 2 * hour) }), 400, /endsAt must be after startsAt/);
    expectError(await windowNow({ repeatUnit: 'YEAR' }), 400, /repeatUnit/);
    expectError(await windowNow({ repeatInterval: 0 }), 400, /repeatInterval/);

    for (const w of [id, once.id]) expect((await svc.api('DELETE', `/v1/maintenance-windows/${w}`)).status).toBe(204);
    expectError(await svc.api('DELETE', `/v1/maintenance-windows/${id}`), 404, /not found/);
  });

  it('pauses the scheduled runs of checks with its tags, or whose group has them, until it is gone', async () => {
    const win = (await windowNow({ tags: ['paused', 'paused-group'] })).body;
    const group = (await svc.api('POST', '/v2/check-groups', { name: 'paused by group', tags: ['paused-group'] })).body;
    const byTag = await urlCheck({ name: 'by tag', tags: ['paused'] });
    const byGroup = await urlCheck({ name: 'by group', groupId: group.id });
    const free = await urlCheck({ name: 'free' });
    // Two runs of the free check: both others came due meanwhile.
    await eventually(async () => (await resultCount(free)) >= 2, 40_000, 250);
    expect(await resultCount(byTag)).toBe(0);
    expect(await resultCount(byGroup)).toBe(0);
    // Run now still runs.
    const trig = await svc.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [byTag] } });
    expect(trig.status).toBe(201);

    expect((await svc.api('DELETE', `/v1/maintenance-windows/${win.id}`)).status).toBe(204);
    await eventually(async () => (await resultCount(byGroup)) >= 1, 40_000, 250);
    for (const id of [byTag, byGroup, free]) await svc.api('DELETE', `/v1/checks/${id}`);
  });

  it('silences the alerts of checks with silenceAlertsTags, and does not tell them after the window', async () => {
    const channel = (
      await svc.api('POST', '/v1/alert-channels', {
        type: 'WEBHOOK',
        config: { name: 'quiet', url: 'http://127.0.0.1:9/', method: 'POST' },
      })
    ).body;
    const subscribed = { activated: false, alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: true }] };
    const quiet = await urlCheck({ name: 'quiet', tags: ['quiet'], ...subscribed });
    const loud = await urlCheck({ name: 'loud', ...subscribed });
    const win = (await windowNow({ silenceAlertsTags: ['quiet'] })).body;
    const runNow = async (id: string) => expect((await runNowOn(svc, id)).status).toBe('FAILED');
    target.healthy = false;
    await runNow(quiet);
    await runNow(loud);
    const notified = async () =>
      (await svc.api('GET', `/v1/alert-notifications?alertChannelId=${channel.id}`)).body.map((n: any) => n.checkId);
    expect(await eventually(async () => ((await notified()).length ? notified() : null))).toEqual([loud]);
    // The silenced failure is on record.
    expect((await svc.api('GET', `/v1/check-alerts/${quiet}`)).body.map((a: any) => a.alertType)).toEqual(['ALERT_FAILURE']);

    // Window over, still failing: nobody is told after the fact.
    expect((await svc.api('DELETE', `/v1/maintenance-windows/${win.id}`)).status).toBe(204);
    await runNow(quiet);
    expect(await notified()).toEqual([loud]);
    target.healthy = true;
    for (const id of [quiet, loud]) await svc.api('DELETE', `/v1/checks/${id}`);
  });
});
