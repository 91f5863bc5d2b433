// Heartbeat checks: pings keep them passing, silence past period + grace fails them, the next
// ping recovers them.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startService, eventually, type Service } from '../helpers/procs.js';

let svc: Service;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

const body = (heartbeat: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name: 'nightly backup',
  script: '',
  heartbeat: { period: 2, periodUnit: 'seconds', grace: 1, graceUnit: 'seconds', ...heartbeat },
  ...extra,
});
const results = async (checkId: string) => (await svc.api('GET', `/v1/check-results/${checkId}?limit=100`)).body as any[];

describe('heartbeat checks', () => {
  it('create with a ping URL and the heartbeat defaults; refuse what the spec requires', async () => {
    const res = await svc.api('POST', '/v1/checks/heartbeat', body({ period: 1, periodUnit: 'hours', grace: 10, graceUnit: 'minutes' }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      checkType: 'HEARTBEAT',
      degradedResponseTime: 10000,
      maxResponseTime: 20000,
      heartbeat: { period: 1, periodUnit: 'hours' },
    });
    expect(res.body.heartbeat.pingUrl).toBe(`${svc.baseUrl}/ping/${res.body.heartbeat.pingToken}`);
    expect((await svc.api('GET', `/v1/checks/${res.body.id}`)).body.heartbeat.pingUrl).toBe(res.body.heartbeat.pingUrl);
    const { script: _s, ...noScript } = body({});
    const bad = await svc.api('POST', '/v1/checks/heartbeat', noScript);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/script is required/);
    expect((await svc.api('POST', '/v1/checks/heartbeat', body({ periodUnit: 'weeks' }))).body.message).toMatch(
      /heartbeat\.periodUnit must be one of/,
    );
    expect((await svc.api('POST', '/v1/checks/heartbeat', body({}, { maxResponseTime: 300001 }))).body.message).toMatch(
      /maxResponseTime must be <= 300000/,
    );
    expect((await svc.api('POST', '/v1/checks/heartbeat', body({ period: 400, periodUnit: 'days' }))).body.message).toMatch(
      /from 1 second to 365 days/,
    );
    expect((await fetch(`${svc.baseUrl}/ping/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  });

  it("refuses another check's ping token with 409, on create and on update, changing nothing", async () => {
    const { body: a } = await svc.api('POST', '/v1/checks/heartbeat', body({ period: 1, periodUnit: 'hours' }));
    const { body: b } = await svc.api('POST', '/v1/checks/heartbeat', body({ period: 1, periodUnit: 'hours' }, { name: 'other' }));
    const taken = a.heartbeat.pingToken;
    const dup = await svc.api('POST', '/v1/checks/heartbeat', body({ pingToken: taken }));
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ statusCode: 409, attributes: { field: 'heartbeat.pingToken' } });
    const put = await svc.api('PUT', `/v1/checks/heartbeat/${b.id}`, { name: 'renamed', heartbeat: { pingToken: taken } });
    expect(put.status).toBe(409);
    const after = (await svc.api('GET', `/v1/checks/${b.id}`)).body;
    expect(after.name).toBe('other');
    expect(after.heartbeat.pingToken).toBe(b.heartbeat.pingToken);
    // Its own token is no conflict.
    expect((await svc.api('PUT', `/v1/checks/heartbeat/${b.id}`, { heartbeat: { pingToken: b.heartbeat.pingToken } })).status).toBe(200);
  });

  it('passes on pings, fails on silence, recovers on the next ping', async () => {
    const { body: check } = await svc.api('POST', '/v1/checks/heartbeat', body({}));
    const url = check.heartbeat.pingUrl;
    expect((await fetch(url)).status).toBe(200);
    expect((await fetch(url, { method: 'HEAD' })).status).toBe(200);
    const passing = await eventually(async () => {
      const rs = await results(check.id);
      return rs.length >= 2 ? rs : null;
    });
    expect(passing.every((r) => !r.hasFailures && r.heartbeatCheckResult.event === 'ping')).toBe(true);

    const missed = await eventually(async () => (await results(check.id)).find((r) => r.hasFailures), 10_000);
    expect(missed.errorMessage).toBe('no ping within period + grace (3 s)');
    expect(missed.heartbeatCheckResult.event).toBe('miss');
    expect((await svc.api('GET', `/v1/check-statuses/${check.id}`)).body.hasFailures).toBe(true);

    expect((await fetch(url, { method: 'POST', body: 'done' })).status).toBe(200);
    await eventually(async () => !(await svc.api('GET', `/v1/check-statuses/${check.id}`)).body.hasFailures);
  });

  it('stops watching a deactivated heartbeat', async () => {
    const { body: check } = await svc.api('POST', '/v1/checks/heartbeat', body({ period: 1, grace: 0 }));
    expect((await svc.api('PUT', `/v1/checks/heartbeat/${check.id}`, { activated: false })).status).toBe(200);
    // Two deadlines pass in silence; a watched check would have failed twice by the time a
    // second, active heartbeat with the same deadline has failed once.
    const { body: probe } = await svc.api('POST', '/v1/checks/heartbeat', body({ period: 2, grace: 0 }));
    await eventually(async () => (await results(probe.id)).some((r) => r.hasFailures), 10_000);
    expect(await results(check.id)).toEqual([]);
  });
});
