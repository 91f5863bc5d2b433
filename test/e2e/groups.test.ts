// Check groups on `outpost start` (its built-in agent runs the members): the API, the effective
// settings members run with, a group run through its trigger URL, and alerting through the
// group's channels.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startService, eventually, runNow as runNowOn, type Service } from '../helpers/procs.js';
import { expectError } from '../helpers/api-error.js';

interface Seen {
  path: string;
  headers: http.IncomingHttpHeaders;
  at: number;
  body: string;
}

/** The members' target: records each request; /fail answers 500, the rest 200, after 400 ms. */
/** The assertion that makes a member fail when its target answers anything but 200. */
const STATUS_200 = { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' };
let seen: Seen[] = [];
let inFlight = 0;
let mostInFlight = 0;
let target: http.Server;
let base: string;
let svc: Service;
beforeAll(async () => {
  target = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ path: req.url!, headers: req.headers, at: Date.now(), body });
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(req.url!.startsWith('/fail') ? 500 : 200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      }, 400);
    });
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  svc = await startService({ OUTPOST_NOTIFY_RETRY_SECONDS: '1' }, 'start');
});
afterAll(async () => {
  await svc?.stop();
  target?.close();
});

/** Runs a check now and answers its session once final. */
const runNow = (checkId: string) => runNowOn(svc, checkId);

const apiCheck = async (extra: Record<string, unknown>) => {
  const res = await svc.api('POST', '/v1/checks/api', {
    name: 'member',
    activated: false,
    locations: ['eu-west-1'],
    request: { method: 'GET', url: '{{GROUP_BASE_URL}}/ok' },
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

describe('check groups', () => {
  it('are created (v2 and v1 defaults), listed, filtered, updated in part and refused when wrong', async () => {
    const v2 = await svc.api('POST', '/v2/check-groups', { name: 'checkout', tags: ['shop'] });
    expect(v2.status, JSON.stringify(v2.body)).toBe(201);
    expect(v2.body).toMatchObject({
      id: expect.any(Number),
      name: 'checkout',
      activated: true,
      muted: false,
      concurrency: 3,
      tags: ['shop'],
      locations: [],
      runParallel: false,
      retryStrategy: 'FALLBACK',
      useGlobalAlertSettings: null,
      doubleCheck: false,
      apiCheckDefaults: { url: '', headers: [], queryParameters: [], assertions: [], basicAuth: null },
      alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 1 } },
      alertChannelSubscriptions: [],
      checks: [],
      created_at: expect.any(String),
      updated_at: null,
    });
    const v1 = await svc.api('POST', '/v1/check-groups', { name: 'legacy', locations: ['us-east-1'] });
    expect(v1.status).toBe(201);
    expect(v1.body).toMatchObject({ useGlobalAlertSettings: true, doubleCheck: true, retryStrategy: null, locations: ['us-east-1'] });

    const list = await svc.api('GET', '/v1/check-groups?limit=100');
    expect(list.status).toBe(200);
    expect(list.body.map((g: any) => g.id)).toEqual(expect.arrayContaining([v2.body.id, v1.body.id]));
    expect(list.headers.get('content-range')).toMatch(/^0-\d+\/\d+$/);
    expect((await svc.api('GET', '/v1/check-groups?tag=shop')).body.map((g: any) => g.name)).toEqual(['checkout']);
    expect((await svc.api('GET', '/v1/check-groups?name=legacy&name=nope')).body.map((g: any) => g.name)).toEqual(['legacy']);

    // What a PUT leaves out stays as it was.
    const put = await svc.api('PUT', `/v2/check-groups/${v2.body.id}`, { concurrency: 1, apiCheckDefaults: { url: base } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ name: 'checkout', tags: ['shop'], concurrency: 1, apiCheckDefaults: { url: base } });
    expect(put.body.updated_at).toEqual(expect.any(String));
    expect((await svc.api('GET', `/v1/check-groups/${v2.body.id}`)).body.concurrency).toBe(1);

    expectError(await svc.api('POST', '/v2/check-groups', { name: 'x', concurrency: 0 }), 400, /concurrency/);
    expectError(await svc.api('POST', '/v2/check-groups', {}), 400, /name/);
    const tooMany = Array.from({ length: 101 }, (_, i) => ({ key: `K${i}`, value: 'v' }));
    expectError(await svc.api('POST', '/v2/check-groups', { name: 'x', environmentVariables: tooMany }), 400, /environmentVariables/);
    expectError(await svc.api('POST', '/v2/check-groups', { name: 'x', privateLocations: ['nowhere'] }), 400, /nowhere/);
    expectError(
      await svc.api('POST', '/v2/check-groups', { name: 'x', alertChannelSubscriptions: [{ alertChannelId: 999999, activated: true }] }),
      400,
      /999999/,
    );
    expectError(await svc.api('GET', '/v1/check-groups/999999'), 404, /Check group 999999 not found/);
    expectError(await svc.api('PUT', '/v2/check-groups/999999', { name: 'x' }), 404, /Check group 999999 not found/);
    expect((await svc.api('DELETE', `/v1/check-groups/${v1.body.id}`)).status).toBe(204);
  });

  it("shows members with the group's settings applied, refuses unknown groups, and keeps a group with checks", async () => {
    const group = (
      await svc.api('POST', '/v2/check-groups', {
        name: 'api defaults',
        locations: ['ap-south-1'],
        runtimeId: '2024.09',
        environmentVariables: [{ key: 'REGION', value: 'eu' }],
        apiCheckDefaults: {
          url: base,
          headers: [{ key: 'X-Team', value: 'sre' }],
          assertions: [STATUS_200],
        },
      })
    ).body;
    expectError(
      await svc.api('POST', '/v1/checks/api', { name: 'x', request: { method: 'GET', url: 'http://127.0.0.1/' }, groupId: 999999 }),
      400,
      /groupId names no check group with id 999999/,
    );
    const member = await apiCheck({
      groupId: group.id,
      request: { method: 'GET', url: '{{GROUP_BASE_URL}}/ok', headers: [{ key: 'X-Own', value: '1' }] },
    });

    const own = (await svc.api('GET', `/v1/checks/${member.id}`)).body;
    expect(own.locations).toEqual(['eu-west-1']);
    expect(own.request.headers).toEqual([{ key: 'X-Own', value: '1' }]);
    const applied = (await svc.api('GET', `/v1/checks/${member.id}?applyGroupSettings=true`)).body;
    expect(applied).toMatchObject({ id: member.id, locations: ['ap-south-1'], runtimeId: '2024.09', groupId: group.id });
    expect(applied.request.headers).toEqual([
      { key: 'X-Team', value: 'sre' },
      { key: 'X-Own', value: '1' },
    ]);
    expect(applied.request.assertions).toEqual([{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', property: '', regex: null }]);
    expect(applied.environmentVariables.map((v: any) => v.key)).toEqual(['GROUP_BASE_URL', 'REGION']);
    for (const v of ['v1', 'v2']) {
      const members = await svc.api('GET', `/${v}/check-groups/${group.id}/checks`);
      expect(members.status).toBe(200);
      expect(members.body).toEqual([applied]);
      expect((await svc.api('GET', `/${v}/check-groups/${group.id}/checks/${member.id}`)).body).toEqual(applied);
    }
    expect((await svc.api('GET', `/v1/check-groups/${group.id}`)).body.checks).toEqual([member.id]);
    const stranger = await apiCheck({ request: { method: 'GET', url: `${base}/ok` } });
    expectError(await svc.api('GET', `/v1/check-groups/${group.id}/checks/${stranger.id}`), 404, /not found/);

    expectError(await svc.api('DELETE', `/v1/check-groups/${group.id}`), 409, /still has 1 check/);
    expect((await svc.api('DELETE', `/v1/checks/${member.id}`)).status).toBe(204);
    expect((await svc.api('DELETE', `/v1/check-groups/${group.id}`)).status).toBe(204);
  });

  it('runs every member through its trigger URL in groupOrder, `concurrency` at a time, with group defaults', async () => {
    const group = (
      await svc.api('POST', '/v2/check-groups', {
        name: 'release gate',
        // Not scheduled (an inactive group's checks do not run on their own): only the trigger runs them.
        activated: false,
        concurrency: 1,
        apiCheckDefaults: {
          url: base,
          headers: [{ key: 'X-Team', value: 'sre' }],
          queryParameters: [{ key: 'from', value: 'group' }],
          basicAuth: { username: 'ops', password: 'pw' },
          assertions: [STATUS_200],
        },
        localSetupScript: "request.headers['X-Steps'] = 'group';",
        localTearDownScript: "console.log('group teardown');",
      })
    ).body;
    // Every minute, were it not for the group; an inactive check would not run in a group run.
    const activeMember = (extra: Record<string, unknown>) => apiCheck({ activated: true, frequency: 1, ...extra });
    const second = await activeMember({
      name: 'second',
      groupId: group.id,
      groupOrder: 2,
      request: { method: 'GET', url: '{{GROUP_BASE_URL}}/second' },
    });
    const first = await activeMember({
      name: 'first',
      groupId: group.id,
      groupOrder: 1,
      request: { method: 'GET', url: '{{GROUP_BASE_URL}}/first', headers: [{ key: 'x-team', value: 'own' }] },
      localSetupScript: "request.headers['X-Steps'] += ',check';",
    });
    const failing = await activeMember({
      name: 'failing',
      groupId: group.id,
      groupOrder: 3,
      request: { method: 'GET', url: '{{GROUP_BASE_URL}}/fail' },
    });

    const trigger = await svc.api('POST', `/v1/triggers/check-groups/${group.id}`);
    expect(trigger.status).toBe(201);
    expect(trigger.body).toMatchObject({ groupId: group.id, token: expect.any(String), called_at: null });
    expect((await svc.api('GET', `/v1/triggers/check-groups/${group.id}`)).body.token).toBe(trigger.body.token);
    expect((await fetch(`${svc.baseUrl}/check-groups/${group.id}/trigger/wrong-token`)).status).toBe(404);

    seen = [];
    mostInFlight = 0;
    const res = await fetch(trigger.body.url, { method: 'POST' });
    const outcome = (await res.json()) as any[];
    // One member fails (the group's status assertion on a 500), so the run as a whole failed.
    expect(res.status).toBe(503);
    expect(outcome.map((o) => [o.checkId, o.name, o.hasFailures])).toEqual([
      [first.id, 'first', false],
      [second.id, 'second', false],
      [failing.id, 'failing', true],
    ]);
    expect(outcome.every((o) => typeof o.responseTime === 'number' && typeof o.checkSessionId === 'string')).toBe(true);
    expect(seen.map((s) => s.path.split('?')[0])).toEqual(['/first', '/second', '/fail']);
    expect(mostInFlight).toBe(1);
    const [a, b] = seen;
    expect(a.path).toBe('/first?from=group');
    expect(a.headers['x-team']).toBe('own');
    expect(a.headers['x-steps']).toBe('group,check');
    expect(a.headers.authorization).toBe(`Basic ${Buffer.from('ops:pw').toString('base64')}`);
    expect(b.headers['x-team']).toBe('sre');
    expect(b.headers['x-steps']).toBe('group');
    expect((await svc.api('GET', `/v1/triggers/check-groups/${group.id}`)).body.called_at).toEqual(expect.any(String));

    // With room for two, they run side by side, two at most.
    await svc.api('PUT', `/v2/check-groups/${group.id}`, { concurrency: 2 });
    mostInFlight = 0;
    expect(await (await fetch(trigger.body.url)).json()).toHaveLength(3);
    expect(mostInFlight).toBe(2);

    expect((await svc.api('DELETE', `/v1/triggers/check-groups/${group.id}`)).status).toBe(204);
    expect((await fetch(trigger.body.url)).status).toBe(404);
  });

  it("alerts through the group's channels instead of the check's own, and not at all while the group is muted", async () => {
    const hooks: Record<string, Seen[]> = { check: [], group: [] };
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        hooks[req.url!.slice(1)]?.push({ path: req.url!, headers: req.headers, at: Date.now(), body });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hookBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const channel = async (name: string) =>
      (
        await svc.api('POST', '/v1/alert-channels', {
          type: 'WEBHOOK',
          config: { name, url: `${hookBase}/${name}`, method: 'POST', template: '{"type":"{{ALERT_TYPE}}","check":"{{CHECK_NAME}}"}' },
        })
      ).body.id as number;
    const checkChannel = await channel('check');
    const groupChannel = await channel('group');
    const group = (
      await svc.api('POST', '/v2/check-groups', {
        name: 'alerting group',
        apiCheckDefaults: { url: base },
        alertChannelSubscriptions: [{ alertChannelId: groupChannel, activated: true }],
      })
    ).body;
    expect(group.alertChannelSubscriptions).toEqual([{ alertChannelId: groupChannel, activated: true }]);
    const member = await apiCheck({
      name: 'down member',
      groupId: group.id,
      request: {
        method: 'GET',
        url: '{{GROUP_BASE_URL}}/fail',
        assertions: [STATUS_200],
      },
      alertChannelSubscriptions: [{ alertChannelId: checkChannel, activated: true }],
    });
    const applied = (await svc.api('GET', `/v1/checks/${member.id}?applyGroupSettings=true`)).body;
    expect(applied.alertChannelSubscriptions).toEqual([{ alertChannelId: groupChannel, activated: true }]);

    expect((await runNow(member.id)).status).toBe('FAILED');
    const told = await eventually(async () => hooks.group[0]);
    expect(JSON.parse(told.body)).toEqual({ type: 'ALERT_FAILURE', check: 'down member' });

    // Muted through its group: the alert is recorded, nobody is told.
    const mutedGroup = (
      await svc.api('POST', '/v2/check-groups', {
        name: 'quiet',
        muted: true,
        alertChannelSubscriptions: [{ alertChannelId: groupChannel, activated: true }],
      })
    ).body;
    const quiet = await apiCheck({
      name: 'quiet member',
      groupId: mutedGroup.id,
      request: { method: 'GET', url: `${base}/fail`, assertions: [STATUS_200] },
    });
    await runNow(quiet.id);
    const alerts = await eventually(async () => {
      const a = (await svc.api('GET', `/v1/check-alerts/${quiet.id}`)).body;
      return a.length ? a : null;
    });
    expect(alerts[0]).toMatchObject({ alertType: 'ALERT_FAILURE', name: 'quiet member' });
    const sent = (await svc.api('GET', `/v1/alert-notifications?alertChannelId=${groupChannel}`)).body;
    expect(sent.map((n: any) => n.checkId)).toEqual([member.id]);
    expect(hooks.check).toEqual([]);
    expect(hooks.group).toHaveLength(1);
    receiver.close();
  });

  it('serve status badges of checks and groups to anyone, saying only name and state', async () => {
    const group = (await svc.api('POST', '/v2/check-groups', { name: 'badged', apiCheckDefaults: { url: base } })).body;
    const ok = await apiCheck({ name: 'ok member', groupId: group.id, request: { method: 'GET', url: '{{GROUP_BASE_URL}}/ok' } });
    const down = await apiCheck({
      name: 'down member',
      groupId: group.id,
      request: {
        method: 'GET',
        url: '{{GROUP_BASE_URL}}/fail',
        assertions: [STATUS_200],
      },
    });
    for (const id of [ok.id, down.id]) {
      await runNow(id);
    }
    // No API key: a README embeds these.
    const badge = async (path: string) => {
      const res = await fetch(`${svc.baseUrl}${path}`);
      return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
    };
    const okBadge = await badge(`/v1/badges/checks/${ok.id}`);
    expect(okBadge.status).toBe(200);
    expect(okBadge.type).toMatch(/^image\/svg\+xml/);
    expect(okBadge.body).toContain('aria-label="ok member: inactive"');
    const activeOk = await apiCheck({ name: 'live', activated: true, frequency: 1440, request: { method: 'GET', url: `${base}/ok` } });
    await runNow(activeOk.id);
    const live = await badge(`/v1/badges/checks/${activeOk.id}?responseTime=true&style=for-the-badge`);
    expect(live.body).toMatch(/aria-label="live: passing \| \d+ ms"/);
    expect(live.body).not.toContain(base);
    // The group: its worst active member. Activated, the failing one decides.
    await svc.api('PUT', `/v1/checks/api/${down.id}`, { activated: true, frequency: 1440 });
    expect((await badge(`/v1/badges/groups/${group.id}?theme=dark`)).body).toContain('aria-label="badged: failing"');
    expect((await badge(`/v1/badges/checks/${down.id}`)).body).toContain('fill="#cf222e"');
    expect(await badge('/v1/badges/checks/00000000-0000-4000-8000-000000000000')).toMatchObject({ status: 404 });
    expect(await badge(`/v1/badges/checks/${ok.id}?style=round`)).toMatchObject({ status: 400 });
    expect(await badge('/v1/badges/groups/0')).toMatchObject({ status: 400 });
    for (const id of [ok.id, down.id, activeOk.id]) await svc.api('DELETE', `/v1/checks/${id}`);
  });
});
