// Run now: check sessions and trigger URLs, on `outpost start` (the built-in agent serves the
// data-center locations).

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startService, type Service } from '../helpers/procs.js';
import { tcpServer, closedPort, type TcpTarget } from '../helpers/servers.js';

let svc: Service;
let quick: TcpTarget;
let slow: TcpTarget;
beforeAll(async () => {
  svc = await startService({}, 'start');
  quick = await tcpServer({ reply: () => 'OK' });
  slow = await tcpServer({ delayMs: 2500, reply: () => 'OK' });
});
afterAll(async () => {
  await svc?.stop();
  await quick?.close();
  await slow?.close();
});

async function check(port: number, extra: Record<string, unknown> = {}) {
  const res = await svc.api('POST', '/v1/checks/tcp', {
    name: `tcp ${port}`,
    activated: false,
    locations: ['eu-west-1', 'us-east-1'],
    request: { hostname: '127.0.0.1', port, data: 'GO', assertions: [{ source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'OK' }] },
    ...extra,
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('check sessions', () => {
  it('run a check in each of its locations and await the final record (408 first)', async () => {
    const id = await check(slow.port);
    const trig = await svc.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [id] } });
    expect(trig.status).toBe(201);
    const [session] = trig.body.sessions;
    expect(session).toMatchObject({ checkId: id, checkType: 'TCP', name: `tcp ${slow.port}`, runSource: 'TRIGGER_API', stoppedAt: null });
    expect(['STARTED', 'PROGRESS']).toContain(session.status);
    expect(session.runLocations.sort()).toEqual(['eu-west-1', 'us-east-1']);

    const early = await svc.api('GET', `/v2/check-sessions/${session.checkSessionId}/completion?maxWaitSeconds=1`);
    expect(early.status).toBe(408);
    expect(early.headers.get('retry-after')).toBe('1');
    expect(early.body).toMatchObject({ statusCode: 408, error: 'Request Timeout' });

    const done = await svc.api('GET', `/v2/check-sessions/${session.checkSessionId}/completion?maxWaitSeconds=20`);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ checkSessionId: session.checkSessionId, status: 'PASSED' });
    expect(done.body.timeElapsed).toBeGreaterThanOrEqual(2400);
    expect(done.body.results).toHaveLength(2);
    expect(done.body.results[0]).toMatchObject({
      checkId: id,
      checkType: 'TCP',
      hasFailures: false,
      hasErrors: false,
      isDegraded: false,
      resultType: 'FINAL',
    });
    expect((await svc.api('GET', `/v1/check-sessions/${session.checkSessionId}`)).body).toEqual(done.body);
    // The runs are results of the check like any other.
    const results = (await svc.api('GET', `/v1/check-results/${id}`)).body;
    expect(results.map((r: any) => r.id).sort()).toEqual(done.body.results.map((r: any) => r.checkResultId).sort());
  });

  it('end FAILED when a location fails', async () => {
    const id = await check(await closedPort());
    const { body } = await svc.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [id] } });
    const done = await svc.api('GET', `/v2/check-sessions/${body.sessions[0].checkSessionId}/completion?maxWaitSeconds=20`);
    expect(done.body.status).toBe('FAILED');
    expect(done.body.results.every((r: any) => r.hasFailures)).toBe(true);
  });

  it('select by tags, and answer 404 when nothing matches', async () => {
    const a = await check(quick.port, { tags: ['shop', 'prod'] });
    await check(quick.port, { tags: ['shop'] });
    const res = await svc.api('POST', '/v2/check-sessions/trigger', { target: { matchTags: [['prod', 'shop'], ['nothing']] } });
    expect(res.body.sessions.map((s: any) => s.checkId)).toEqual([a]);
    const none = await svc.api('POST', '/v2/check-sessions/trigger', { target: { matchTags: [['absent']] } });
    expect(none.status).toBe(404);
    expect(
      (await svc.api('POST', '/v2/check-sessions/trigger', { target: { checkId: ['00000000-0000-0000-0000-000000000000'] } })).status,
    ).toBe(404);
    expect((await svc.api('GET', '/v2/check-sessions/00000000-0000-0000-0000-000000000000')).status).toBe(404);
    expect((await svc.api('GET', '/v2/check-sessions/00000000-0000-0000-0000-000000000000/completion')).status).toBe(404);
    expect((await svc.api('GET', `/v2/check-sessions/x/completion?maxWaitSeconds=3031`)).status).toBe(400);
  });

  it('cancel', async () => {
    const id = await check(slow.port);
    const { body } = await svc.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [id] } });
    const cancelled = await svc.api('POST', `/v1/check-sessions/${body.sessions[0].checkSessionId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    const later = await svc.api('GET', `/v2/check-sessions/${body.sessions[0].checkSessionId}/completion?maxWaitSeconds=1`);
    expect(later.body.status).toBe('CANCELLED');
  });
});

describe('API checks with a setup snippet', () => {
  it('run the snippet on the agent before the request', async () => {
    const { httpServer } = await import('../helpers/http-servers.js');
    const web = await httpServer();
    try {
      const snippet = (await svc.api('POST', '/v1/snippets', { name: 'sig', script: "request.headers['x-sig'] = 'from-snippet'" })).body;
      const check = (
        await svc.api('POST', '/v1/checks/api', {
          name: 'signed',
          activated: false,
          locations: ['eu-west-1'],
          setupSnippetId: snippet.id,
          request: {
            method: 'GET',
            url: `${web.url}/echo`,
            assertions: [{ source: 'JSON_BODY', property: '$.headers.x-sig', comparison: 'EQUALS', target: 'from-snippet' }],
          },
        })
      ).body;
      const { body } = await svc.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [check.id] } });
      const done = await svc.api('GET', `/v2/check-sessions/${body.sessions[0].checkSessionId}/completion?maxWaitSeconds=20`);
      expect(done.body.status).toBe('PASSED');
    } finally {
      await web.close();
    }
  });
});

describe('trigger URLs', () => {
  it('run the check and answer 200 when it passed, 503 when it failed, 404 once deleted', async () => {
    const good = await check(quick.port);
    const created = await svc.api('POST', `/v1/triggers/checks/${good}`);
    expect(created.status).toBe(201);
    expect(created.body.url).toBe(`${svc.baseUrl}/checks/${good}/trigger/${created.body.token}`);
    expect((await svc.api('GET', `/v1/triggers/checks/${good}`)).body).toEqual(created.body);
    const ok = await fetch(created.body.url);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ hasFailures: false, status: 'PASSED' });

    const bad = await check(await closedPort());
    const t = (await svc.api('POST', `/v1/triggers/checks/${bad}`)).body;
    const failed = await fetch(t.url, { method: 'POST' });
    expect(failed.status).toBe(503);
    expect((await failed.json()).hasFailures).toBe(true);

    expect((await svc.api('DELETE', `/v1/triggers/checks/${good}`)).status).toBe(204);
    expect((await fetch(created.body.url)).status).toBe(404);
    expect((await svc.api('DELETE', `/v1/triggers/checks/${good}`)).status).toBe(404);
    expect((await fetch(`${svc.baseUrl}/checks/${bad}/trigger/wrong-token`)).status).toBe(404);
  });
});
