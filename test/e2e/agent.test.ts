// A real agent process against a real service process, running TCP checks against local servers.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, expect, afterEach } from 'vitest';
import { startService, startAgent, createPrivateLocation, eventually, type Service, type AgentProc } from '../helpers/procs.js';
import { tcpServer, closedPort, type TcpTarget } from '../helpers/servers.js';
import { httpServer, tlsFront } from '../helpers/http-servers.js';
import { dnsServer } from '../helpers/dns-server.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {});
});

async function setup(serviceEnv: Record<string, string> = {}, agentEnv: Record<string, string> = {}) {
  const svc = await startService(serviceEnv);
  cleanup.push(() => svc.proc.kill('SIGKILL'));
  const pl = await createPrivateLocation(svc);
  const agent = await startAgent(svc, pl.key, agentEnv);
  cleanup.push(() => agent.proc.kill('SIGKILL'));
  return { svc, pl, agent };
}

async function target(opts: Parameters<typeof tcpServer>[0]): Promise<TcpTarget> {
  const t = await tcpServer(opts);
  cleanup.push(() => t.close());
  return t;
}

async function createCheck(svc: Service, slug: string, request: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const res = await svc.api('POST', '/v1/checks/tcp', {
    name: 'tcp e2e',
    frequency: 0,
    frequencyOffset: 10,
    privateLocations: [slug],
    request,
    ...extra,
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const results = async (svc: Service, checkId: string) => (await svc.api('GET', `/v1/check-results/${checkId}?limit=100`)).body as any[];
const firstResult = (svc: Service, checkId: string, timeoutMs = 30_000) =>
  eventually(async () => (await results(svc, checkId))[0], timeoutMs);
const readiness = async (agent: AgentProc) => (await fetch(`${agent.healthUrl}/-/readiness`)).status;

describe('agent and service, end to end', () => {
  it('runs a TCP check from a private location and reports a passing result through op 7', async () => {
    const { svc, pl, agent } = await setup();
    const echo = await target({ reply: (d) => (d === 'PING\n' ? 'PONG\n' : 'WHAT\n') });
    const checkId = await createCheck(svc, pl.slugName, {
      hostname: '127.0.0.1',
      port: echo.port,
      data: 'PING\n',
      assertions: [
        { source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'PONG' },
        { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '1000' },
      ],
    });
    await eventually(async () => (await readiness(agent)) === 200);
    const r = await firstResult(svc, checkId);
    expect(r).toMatchObject({
      checkId,
      name: 'tcp e2e',
      hasFailures: false,
      hasErrors: false,
      isDegraded: false,
      runLocation: pl.slugName,
      resultType: 'FINAL',
      attempts: 0,
    });
    expect(r.tcpCheckResult.response.data).toBe('PONG\n');
    expect(r.tcpCheckResult.assertions.every((a: any) => a.passed)).toBe(true);
    const t = r.tcpCheckResult.timings;
    expect(t.total).toBeGreaterThanOrEqual(t.connect);
    expect(r.responseTime).toBe(Math.round(t.total));

    const one = await svc.api('GET', `/v1/check-results/${checkId}/${r.id}`);
    expect(one.body).toEqual(r);
    const status = await svc.api('GET', `/v1/check-statuses/${checkId}`);
    expect(status.body).toMatchObject({ checkId, hasFailures: false, lastRunLocation: pl.slugName });
    const loc = (await svc.api('GET', `/v1/private-locations/${pl.id}`)).body;
    expect(loc.agentCount).toBe(1);
    expect(loc.minAgentVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(loc.lastSeen).not.toBeNull();
  });

  it('reports a closed port as a failing result naming the error', async () => {
    const { svc, pl } = await setup();
    const checkId = await createCheck(svc, pl.slugName, { hostname: '127.0.0.1', port: await closedPort() });
    const r = await firstResult(svc, checkId);
    expect(r.hasFailures).toBe(true);
    expect(r.hasErrors).toBe(false);
    expect(r.errorMessage).toMatch(/ECONNREFUSED/);
    expect((await svc.api('GET', `/v1/check-results/${checkId}?hasFailures=false`)).body).toEqual([]);
  });

  it('with OUTPOST_BLOCK_PRIVATE_TARGETS, refuses a loopback target and says why', async () => {
    const { svc, pl } = await setup({}, { OUTPOST_BLOCK_PRIVATE_TARGETS: 'true' });
    const echo = await target({});
    const checkId = await createCheck(svc, pl.slugName, { hostname: '127.0.0.1', port: echo.port });
    const r = await firstResult(svc, checkId);
    expect(r.hasFailures).toBe(true);
    expect(r.errorMessage).toMatch(/refused to connect to 127\.0\.0\.1: a loopback, link-local or private address/);
    expect(echo.connections).toBe(0);
  });

  it('refuses a revoked key: the agent turns not-ready', async () => {
    const { svc, pl, agent } = await setup();
    await eventually(async () => (await readiness(agent)) === 200);
    expect((await svc.api('DELETE', `/v1/private-locations/${pl.id}/keys/${pl.keyId}`)).status).toBe(204);
    await agent.proc.waitLog((l) => l.state === 'refused');
    expect(await readiness(agent)).toBe(503);
    expect((await fetch(`${agent.healthUrl}/-/liveness`)).status).toBe(200);
    const health = await (await fetch(`${agent.healthUrl}/health`)).json();
    expect(health).toMatchObject({ connected: false, status: 'refused' });
    expect(agent.proc.logs.map((l) => JSON.stringify(l)).join('\n')).not.toContain(pl.key);
  });

  it('on SIGTERM finishes the running check, delivers its result and exits 0', async () => {
    const { svc, pl, agent } = await setup();
    const slow = await target({ delayMs: 2500, reply: () => 'DONE' });
    const checkId = await createCheck(svc, pl.slugName, {
      hostname: '127.0.0.1',
      port: slow.port,
      data: 'GO',
      assertions: [{ source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'DONE' }],
    });
    await agent.proc.waitLog((l) => l.msg === 'job started' && l.checkId === checkId);
    agent.proc.child.kill('SIGTERM');
    // Not ready from the first moment of shutdown, while the check still runs.
    await agent.proc.waitLog((l) => l.msg === 'shutting down');
    expect(await readiness(agent)).toBe(503);
    expect(await agent.proc.exited).toBe(0);
    const r = await firstResult(svc, checkId, 5000);
    expect(r).toMatchObject({ hasFailures: false });
    expect(r.responseTime).toBeGreaterThanOrEqual(2400);
  });

  it('keeps results through a service restart: none lost, none doubled', async () => {
    const { svc, pl, agent } = await setup();
    const slow = await target({ delayMs: 2000, reply: () => 'DONE' });
    const checkId = await createCheck(svc, pl.slugName, { hostname: '127.0.0.1', port: slow.port, data: 'GO' });
    const started = await agent.proc.waitLog((l) => l.msg === 'job started' && l.checkId === checkId);
    await svc.stop();
    await agent.proc.waitLog((l) => l.msg === 'could not deliver results; keeping them on disk');
    await svc.restart();
    const r = await eventually(async () =>
      (await results(svc, checkId)).find((x) => started.jobId.startsWith(`${x.checkRunId}:${checkId}:`)),
    );
    expect(r.hasFailures).toBe(false);
    await agent.proc.waitLog((l) => l.msg === 'spooled results delivered');
    const all = await results(svc, checkId);
    const keys = all.map((x) => `${x.checkRunId}/${x.runLocation}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('re-dispatches the job of an agent killed mid-run once its lease expires', async () => {
    const { svc, pl, agent } = await setup({ OUTPOST_LEASE_SECONDS: '2' });
    const slow = await target({ delayMs: 1500, reply: () => 'DONE' });
    const checkId = await createCheck(svc, pl.slugName, { hostname: '127.0.0.1', port: slow.port, data: 'GO' });
    const started = await agent.proc.waitLog((l) => l.msg === 'job started' && l.checkId === checkId);
    await agent.proc.kill('SIGKILL');
    const second = await startAgent(svc, pl.key);
    cleanup.push(() => second.proc.kill('SIGKILL'));
    await second.proc.waitLog((l) => l.msg === 'job started' && l.jobId === started.jobId, 15_000);
    await svc.proc.waitLog((l) => l.msg?.startsWith('lease expired') && l.jobId === started.jobId);
    const r = await eventually(async () =>
      (await results(svc, checkId)).find((x) => started.jobId === `${x.checkRunId}:${checkId}:${x.runLocation}`),
    );
    expect(r.hasFailures).toBe(false);
  });

  it('delivers spooled results after an agent restart, exactly once', async () => {
    const { svc, pl, agent } = await setup();
    const slow = await target({ delayMs: 1500, reply: () => 'DONE' });
    const checkId = await createCheck(svc, pl.slugName, { hostname: '127.0.0.1', port: slow.port, data: 'GO' });
    const started = await agent.proc.waitLog((l) => l.msg === 'job started' && l.checkId === checkId);
    await svc.stop();
    await agent.proc.waitLog((l) => l.msg === 'could not deliver results; keeping them on disk');
    expect(await agent.proc.kill('SIGTERM')).toBe(0);
    await svc.restart();
    const next = await startAgent(svc, pl.key, { OUTPOST_SPOOL_DIR: agent.spoolDir });
    cleanup.push(() => next.proc.kill('SIGKILL'));
    await next.proc.waitLog((l) => l.msg === 'spooled results delivered');
    const mine = (await results(svc, checkId)).filter((x) => started.jobId === `${x.checkRunId}:${checkId}:${x.runLocation}`);
    expect(mine).toHaveLength(1);
    expect(mine[0].hasFailures).toBe(false);
  });

  it('sets aside a result the service refuses, and the next results still arrive', async () => {
    const svc = await startService();
    cleanup.push(() => svc.proc.kill('SIGKILL'));
    const pl = await createPrivateLocation(svc);
    // A spooled result the service will never take (valid JSON, invalid result), first in line.
    const spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-spool-'));
    const poison = { jobId: 'c:1:x', checkId: 'c', location: 'x', dueAt: 1, startedAt: 1, stoppedAt: 2, responseTime: -5 };
    fs.writeFileSync(
      path.join(spoolDir, 'results-00000001.jsonl'),
      `${JSON.stringify({ ...poison, hasFailures: false, hasErrors: false })}\n`,
    );
    const agent = await startAgent(svc, pl.key, { OUTPOST_SPOOL_DIR: spoolDir });
    cleanup.push(() => agent.proc.kill('SIGKILL'));
    const refused = await agent.proc.waitLog((l) => l.msg === 'the service refused a result; it is set aside and not sent again');
    expect(refused).toMatchObject({ jobId: 'c:1:x', status: 400 });
    const echo = await target({ reply: () => 'OK' });
    const checkId = await createCheck(svc, pl.slugName, { hostname: '127.0.0.1', port: echo.port, data: 'HI' });
    expect((await firstResult(svc, checkId)).hasFailures).toBe(false);
    const metrics = await (await fetch(`${agent.healthUrl}/metrics`)).text();
    expect(metrics).toMatch(/^outpost_agent_results_refused_total 1$/m);
    const health = await (await fetch(`${agent.healthUrl}/health`)).json();
    expect(health).toMatchObject({ refusedResults: 1, lastRefusedResult: { jobId: 'c:1:x', status: 400 } });
    const kept = fs.readFileSync(path.join(spoolDir, 'refused.jsonl'), 'utf8');
    expect(JSON.parse(kept)).toMatchObject({ result: { jobId: 'c:1:x' } });
    expect(fs.readdirSync(spoolDir).filter((f) => f.startsWith('results-'))).toEqual([]);
  });

  it("binds an agent id to the key that registered it: another location's key cannot act as it", async () => {
    const { svc, pl, agent } = await setup();
    await eventually(async () => (await readiness(agent)) === 200);
    const { agentId } = await (await fetch(`${agent.healthUrl}/health`)).json();
    const other = await createPrivateLocation(svc);
    const post = (p: string, body: unknown) =>
      fetch(svc.baseUrl + p, {
        method: 'POST',
        headers: { authorization: `Bearer ${other.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post('/agent/v1/jobs/lease', { agentId, max: 1, maxBrowser: 0, waitMs: 0, running: [] })).status).toBe(409);
    expect((await post('/agent/v1/deregister', { agentId, release: [] })).status).toBe(200);
    // Only the other key's own (unknown) agent of that id left: the real one is still counted.
    const loc = (await svc.api('GET', `/v1/private-locations/${pl.id}`)).body;
    expect(loc.agentCount).toBe(1);
    expect(loc.runningAgents[0].agents[0].id).toBe(agentId);
    expect(agent.proc.logs.filter((l) => l.msg === 'registered with the service')).toHaveLength(1);
  });

  it('completes a check session across a kill -9 of the service', async () => {
    const svc = await startService();
    cleanup.push(() => svc.proc.kill('SIGKILL'));
    const pl = await createPrivateLocation(svc);
    const echo = await target({ reply: () => 'OK' });
    const checkId = await createCheck(svc, pl.slugName, { hostname: '127.0.0.1', port: echo.port, data: 'GO' }, { activated: false });
    const trig = await svc.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [checkId] } });
    expect(trig.status).toBe(201);
    const sessionId = trig.body.sessions[0].checkSessionId;
    // No agent yet: the run waits in the queue when the service dies without a word.
    await svc.proc.kill('SIGKILL');
    await svc.restart();
    const agent = await startAgent(svc, pl.key);
    cleanup.push(() => agent.proc.kill('SIGKILL'));
    const done = await svc.api('GET', `/v2/check-sessions/${sessionId}/completion?maxWaitSeconds=20`);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ checkSessionId: sessionId, status: 'PASSED' });
    expect(done.body.results).toHaveLength(1);
  });

  it('brings a burst of sessions to a final status across a kill -9 of the service, no result lost or doubled', async () => {
    const { svc, pl } = await setup({}, { JOB_CONCURRENCY: '4' });
    const echo = await target({ delayMs: 200, reply: () => 'OK' });
    const checkIds: string[] = [];
    for (let i = 0; i < 8; i++)
      checkIds.push(await createCheck(svc, pl.slugName, { hostname: '127.0.0.1', port: echo.port, data: 'GO' }, { activated: false }));
    const sessions: { checkSessionId: string; checkId: string }[] = [];
    for (let round = 0; round < 3; round++) {
      const trig = await svc.api('POST', '/v2/check-sessions/trigger', { target: { checkId: checkIds } });
      expect(trig.status).toBe(201);
      sessions.push(...trig.body.sessions);
    }
    expect(sessions).toHaveLength(24);
    // Die mid-burst: some results stored, others running on the agent or waiting in the queue.
    await eventually(async () => (await results(svc, checkIds[0]!)).length > 0);
    await svc.proc.kill('SIGKILL');
    await svc.restart();
    for (const s of sessions) {
      const done = await svc.api('GET', `/v2/check-sessions/${s.checkSessionId}/completion?maxWaitSeconds=30`);
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ checkSessionId: s.checkSessionId, status: 'PASSED' });
      expect(done.body.results).toHaveLength(1);
    }
    for (const id of checkIds) {
      const rs = await results(svc, id);
      expect(rs).toHaveLength(3);
      expect(new Set(rs.map((r) => r.checkRunId)).size).toBe(3);
    }
  });

  it('drops runs no agent picks up in time, and counts them', async () => {
    const svc = await startService({ OUTPOST_UNCLAIMED_RUN_TTL_SECONDS: '1' });
    cleanup.push(() => svc.proc.kill('SIGKILL'));
    const pl = await createPrivateLocation(svc);
    const checkId = await createCheck(svc, pl.slugName, { hostname: '127.0.0.1', port: 9 });
    const line = await svc.proc.waitLog((l) => l.msg?.startsWith('runs dropped'));
    expect(line.locations).toEqual([pl.slugName]);
    const metrics = await (await fetch(`${svc.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/outpost_runs_dropped_total\{reason="unclaimed"\} [1-9]/);
    // The series asked for, and only those: a cheap poll.
    const some = await (await fetch(`${svc.baseUrl}/metrics?name=outpost_runs_dropped_total&name=no_such_metric`)).text();
    expect(some).toMatch(/^# HELP outpost_runs_dropped_total/);
    expect(some).toMatch(/outpost_runs_dropped_total\{reason="unclaimed"\} [1-9]/);
    expect(some).not.toContain('outpost_jobs_pending');
    expect((await fetch(`${svc.baseUrl}/metrics?name=bad-name`)).status).toBe(400);
    // A late agent gets nothing from before it came: no pile of stale runs.
    const agent = await startAgent(svc, pl.key);
    cleanup.push(() => agent.proc.kill('SIGKILL'));
    const first = await agent.proc.waitLog((l) => l.msg === 'job started' && l.checkId === checkId, 20_000);
    expect(Number(first.jobId.split(':')[0])).toBeGreaterThan(line.time - 1000);
  });

  it('counts jobs by type and outcome on /metrics', async () => {
    const { svc, pl, agent } = await setup();
    // No retry (doubleCheck is on by default): one failed run is one job.
    const checkId = await createCheck(svc, pl.slugName, { hostname: '127.0.0.1', port: await closedPort() }, { doubleCheck: false });
    await firstResult(svc, checkId);
    const text = await (await fetch(`${agent.healthUrl}/metrics`)).text();
    expect(text).toMatch(/outpost_agent_jobs_total\{check_type="TCP",outcome="failed"\} 1/);
    expect(text).toMatch(/outpost_agent_job_duration_seconds_count\{check_type="TCP"\} 1/);
    expect(text).toContain('outpost_agent_queue_depth');
    expect(text).toContain('outpost_agent_delivery_failures_total 0');
  });

  it('stops running a deactivated check at once', async () => {
    const { svc, pl, agent } = await setup();
    const echo = await target({});
    const checkId = await createCheck(svc, pl.slugName, { hostname: '127.0.0.1', port: echo.port });
    await firstResult(svc, checkId);
    expect((await svc.api('PUT', `/v1/checks/tcp/${checkId}`, { activated: false })).status).toBe(200);
    const before = agent.proc.logs.filter((l) => l.msg === 'job started' && l.checkId === checkId).length;
    // Two more periods of a 10 s check pass without a run.
    const probe = await target({});
    const other = await createCheck(svc, pl.slugName, { hostname: '127.0.0.1', port: probe.port }, { frequency: 0, frequencyOffset: 10 });
    await agent.proc.waitLog((l) => l.msg === 'job started' && l.checkId === other);
    await new Promise((r) => setTimeout(r, 0));
    const seen = agent.proc.logs.filter((l) => l.msg === 'job started' && l.checkId === other).length;
    await eventually(async () => agent.proc.logs.filter((l) => l.msg === 'job started' && l.checkId === other).length > seen, 15_000);
    expect(agent.proc.logs.filter((l) => l.msg === 'job started' && l.checkId === checkId).length).toBe(before);
  });

  it('refuses to start without API_KEY, naming the variable', async () => {
    const { spawnSync } = await import('node:child_process');
    const env = { ...process.env };
    delete env.API_KEY;
    const r = spawnSync(process.execPath, ['dist/cli.js', 'agent'], { env, encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/API_KEY is required/);
    const bad = spawnSync(process.execPath, ['dist/cli.js', 'agent'], {
      env: { ...env, API_KEY: 'k', JOB_CONCURRENCY: '0' },
      encoding: 'utf8',
    });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/JOB_CONCURRENCY must be a whole number from 1/);
    const level = spawnSync(process.execPath, ['dist/cli.js', 'agent'], {
      env: { ...env, API_KEY: 'k', LOG_LEVEL: 'LOUD' },
      encoding: 'utf8',
    });
    expect(level.stderr).toMatch(/LOG_LEVEL must be one of DEBUG, LOG, INFO, WARN, ERROR/);
    // As the images start it: the file itself, through its #! line (Node flags included).
    const direct = spawnSync('dist/cli.js', ['agent'], { env, encoding: 'utf8' });
    expect(direct.error).toBeUndefined();
    expect(direct.stderr).toMatch(/API_KEY is required/);
  });
});

describe('URL checks end to end', () => {
  it('runs from a private location and stores the response with its timing phases', async () => {
    const { svc, pl } = await setup();
    const web = await httpServer();
    cleanup.push(() => web.close());
    const res = await svc.api('POST', '/v1/checks/url', {
      name: 'web',
      frequency: 0,
      frequencyOffset: 10,
      privateLocations: [pl.slugName],
      request: { url: `${web.url}/ok?wait=30`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
    });
    const r = await firstResult(svc, res.body.id);
    expect(r).toMatchObject({ hasFailures: false, runLocation: pl.slugName });
    expect(r.apiCheckResult.response.status).toBe(200);
    expect(r.apiCheckResult.response.timingPhases.firstByte).toBeGreaterThanOrEqual(29);
    expect(web.seen.some((s) => s.headers['x-outpost-check-id'] === res.body.id)).toBe(true);
  });
});

describe('DNS checks end to end', () => {
  it('query a local name server from a private location', async () => {
    const { svc, pl } = await setup();
    const ns = await dnsServer();
    cleanup.push(() => ns.close());
    const res = await svc.api('POST', '/v1/checks/dns', {
      name: 'dns',
      frequency: 0,
      frequencyOffset: 10,
      privateLocations: [pl.slugName],
      request: {
        recordType: 'A',
        query: 'probe.test',
        nameServer: '127.0.0.1',
        port: ns.tcpPort,
        protocol: 'TCP',
        assertions: [{ source: 'JSON_ANSWER', comparison: 'EQUALS', property: '$.Answer[0].data', target: '127.0.0.1' }],
      },
    });
    const r = await firstResult(svc, res.body.id);
    expect(r).toMatchObject({ hasFailures: false, runLocation: pl.slugName });
    expect(r.dnsCheckResult).toMatchObject({ responseCode: 'NOERROR', protocol: 'TCP', answers: ['probe.test.\t300\tIN\tA\t127.0.0.1'] });
  });
});

describe('API checks end to end', () => {
  it('run on full agents only, with account variables filled in and secrets kept out of results', async () => {
    const { svc, pl, agent: uptime } = await setup({}, { OUTPOST_AGENT_PROFILE: 'uptime' });
    const web = await httpServer();
    cleanup.push(() => web.close());
    await svc.api('POST', '/v1/variables', { key: 'BASE', value: web.url });
    await svc.api('POST', '/v1/variables', { key: 'TOKEN', value: 'e2e-secret-token', secret: true });
    const api = await svc.api('POST', '/v1/checks/api', {
      name: 'api',
      frequency: 0,
      frequencyOffset: 10,
      privateLocations: [pl.slugName],
      request: {
        method: 'GET',
        url: '{{BASE}}/echo',
        headers: [{ key: 'authorization', value: 'Bearer {{TOKEN}}' }],
        assertions: [{ source: 'JSON_BODY', property: '$.headers.authorization', comparison: 'EQUALS', target: 'Bearer {{TOKEN}}' }],
      },
    });
    expect(api.status).toBe(201);
    const echo = await target({});
    const tcpId = await createCheck(svc, pl.slugName, { hostname: '127.0.0.1', port: echo.port });
    // The uptime agent keeps running TCP checks but is never handed the API check.
    await firstResult(svc, tcpId);
    await eventually(async () => (await results(svc, tcpId)).length >= 2, 25_000);
    expect(uptime.proc.logs.some((l) => l.msg === 'job started' && l.checkId === api.body.id)).toBe(false);

    const full = await startAgent(svc, pl.key);
    cleanup.push(() => full.proc.kill('SIGKILL'));
    const r = await firstResult(svc, api.body.id);
    expect(r).toMatchObject({ hasFailures: false, runLocation: pl.slugName });
    expect(r.apiCheckResult.response.status).toBe(200);
    expect(JSON.stringify(r)).not.toContain('e2e-secret-token');
    expect(web.seen.at(-1)!.headers.authorization).toBe('Bearer e2e-secret-token');
  });
});

describe('private-location proxy', () => {
  it('sends API checks of the location through its proxyUrl, credentials never logged', async () => {
    const { recordingProxy } = await import('../helpers/proxy.js');
    const proxy = await recordingProxy({ user: 'agentproxy', pass: 'proxy-secret-pw' });
    cleanup.push(() => proxy.close());
    const web = await httpServer();
    cleanup.push(() => web.close());
    const { svc, pl, agent } = await setup();
    const put = await svc.api('PUT', `/v1/private-locations/${pl.id}`, { name: 'proxied', proxyUrl: proxy.url });
    expect(put.status).toBe(200);
    // The password is written, never shown; the address sent back as shown keeps it.
    expect(put.body.proxyUrl).toBe(proxy.url.replace('proxy-secret-pw', '****'));
    expect(JSON.stringify((await svc.api('GET', '/v1/private-locations')).body)).not.toContain('proxy-secret-pw');
    expect((await svc.api('PUT', `/v1/private-locations/${pl.id}`, { name: 'proxied', proxyUrl: put.body.proxyUrl })).status).toBe(200);
    const api = await svc.api('POST', '/v1/checks/api', {
      name: 'via proxy',
      frequency: 0,
      frequencyOffset: 10,
      privateLocations: [pl.slugName],
      request: { method: 'GET', url: `${web.url}/json` },
    });
    const r = await firstResult(svc, api.body.id);
    expect(r.hasFailures).toBe(false);
    expect(proxy.seen.some((s) => s.target === new URL(web.url).host)).toBe(true);
    const logs = agent.proc.logs.map((l) => JSON.stringify(l)).join('\n') + svc.proc.logs.map((l) => JSON.stringify(l)).join('\n');
    expect(logs).not.toContain('proxy-secret-pw');
    expect(JSON.stringify(r)).not.toContain('proxy-secret-pw');
  });
});

describe('ICMP checks end to end', () => {
  it('ping loopback from an uptime-profile agent', async () => {
    const { svc, pl } = await setup({}, { OUTPOST_AGENT_PROFILE: 'uptime' });
    const res = await svc.api('POST', '/v1/checks/icmp', {
      name: 'ping',
      frequency: 0,
      frequencyOffset: 10,
      privateLocations: [pl.slugName],
      request: { hostname: '127.0.0.1', pingCount: 2 },
    });
    const r = await firstResult(svc, res.body.id);
    expect(r).toMatchObject({ hasFailures: false, icmpCheckResult: { packetsSent: 2, packetsReceived: 2, packetLoss: 0 } });
  });
});

describe("the agent's own connection", () => {
  it('goes through HTTP_PROXY, and around it for hosts in NO_PROXY', async () => {
    const { recordingProxy } = await import('../helpers/proxy.js');
    const proxy = await recordingProxy();
    cleanup.push(() => proxy.close());
    const svc = await startService();
    cleanup.push(() => svc.proc.kill('SIGKILL'));
    const pl = await createPrivateLocation(svc);
    const via = await startAgent(svc, pl.key, { HTTP_PROXY: proxy.url, NO_PROXY: '' });
    cleanup.push(() => via.proc.kill('SIGKILL'));
    await via.proc.waitLog((l) => l.msg === 'registered with the service');
    // undici tunnels (CONNECT host:port) even to plain-HTTP services; absolute-form would be fine too.
    const host = new URL(svc.baseUrl).host;
    const viaProxy = (s: { target: string }) => s.target === host || s.target.startsWith(`${svc.baseUrl}/agent/`);
    expect(proxy.seen.some(viaProxy)).toBe(true);
    await via.proc.kill('SIGKILL');
    const before = proxy.seen.length;
    const around = await startAgent(svc, pl.key, { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' });
    cleanup.push(() => around.proc.kill('SIGKILL'));
    await around.proc.waitLog((l) => l.msg === 'registered with the service');
    expect(proxy.seen.length).toBe(before);
  });

  it('reaches a service behind TLS, trusting the certificate given in NODE_EXTRA_CA_CERTS', async () => {
    const svc = await startService();
    cleanup.push(() => svc.proc.kill('SIGKILL'));
    const front = await tlsFront(svc.baseUrl);
    cleanup.push(() => front.close());
    const pl = await createPrivateLocation(svc);
    const agent = await startAgent(svc, pl.key, { OUTPOST_URL: front.url, NODE_EXTRA_CA_CERTS: front.caFile });
    cleanup.push(() => agent.proc.kill('SIGKILL'));
    const echo = await target({});
    const checkId = await createCheck(svc, pl.slugName, { hostname: '127.0.0.1', port: echo.port });
    expect((await firstResult(svc, checkId)).hasFailures).toBe(false);
    expect(front.forwarded).toEqual(expect.arrayContaining(['/agent/v1/register', '/agent/v1/jobs/lease']));
  });
});

describe('outpost start', () => {
  it('runs data-center checks on the built-in agent, labelled with their location', async () => {
    const svc = await startService({}, 'start');
    cleanup.push(() => svc.proc.kill('SIGKILL'));
    const echo = await target({});
    const res = await svc.api('POST', '/v1/checks/tcp', {
      name: 'dc',
      frequency: 0,
      frequencyOffset: 10,
      locations: ['eu-west-1', 'us-east-1'],
      runParallel: true,
      request: { hostname: '127.0.0.1', port: echo.port },
    });
    const checkId = res.body.id;
    const both = await eventually(async () => {
      const rs = await results(svc, checkId);
      return rs.length >= 2 ? rs : null;
    });
    expect(new Set(both.map((r) => r.runLocation))).toEqual(new Set(['eu-west-1', 'us-east-1']));
    expect(both.every((r) => !r.hasFailures)).toBe(true);
    expect(both[0].checkRunId).toBe(both[1].checkRunId);
    const eu = await svc.api('GET', `/v1/check-results/${checkId}?location=eu-west-1`);
    expect(eu.body.every((r: any) => r.runLocation === 'eu-west-1')).toBe(true);
    expect(await svc.proc.kill('SIGTERM')).toBe(0);
  });

  it("keeps the API answering while a check's regex backtracks, and fails that assertion", async () => {
    const svc = await startService({}, 'start');
    cleanup.push(() => svc.proc.kill('SIGKILL'));
    const web = await httpServer();
    cleanup.push(() => web.close());
    const res = await svc.api('POST', '/v1/checks/api', {
      name: 'redos',
      frequency: 0,
      frequencyOffset: 10,
      locations: ['eu-west-1'],
      request: {
        method: 'POST',
        url: `${web.url}/echo`,
        bodyType: 'RAW',
        body: `${'a'.repeat(31)}!`,
        // Unbounded, this regex backtracks for over a minute against that body.
        assertions: [{ source: 'JSON_BODY', property: '$.body', comparison: 'NOT_NULL', regex: '^(a+)+$' }],
      },
    });
    expect(res.status).toBe(201);
    let slowest = 0;
    const result = await eventually(
      async () => {
        const t0 = performance.now();
        const rs = await results(svc, res.body.id);
        slowest = Math.max(slowest, performance.now() - t0);
        return rs[0];
      },
      30_000,
      25,
    );
    expect(result.hasFailures).toBe(true);
    expect(JSON.stringify(result)).toMatch(/the regex .+ took longer than 1000 ms and was stopped/);
    // Frozen, a request would wait out the whole backtrack; `npm run bench` measures the p99.
    expect(slowest).toBeLessThan(1000);
  });
});
