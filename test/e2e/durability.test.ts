// What the service acknowledges it has: a result it accepted from an agent is there after the
// service is killed with SIGKILL (no shutdown, no flush) and started again, and counts in its
// check's status.

import { afterEach, describe, expect, it } from 'vitest';
import { createPrivateLocation, eventually, startService, type Service } from '../helpers/procs.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** Speaks the agent protocol itself, so the test knows exactly which results were acknowledged. */
function agentClient(svc: Service, key: string) {
  const agentId = crypto.randomUUID();
  const call = async (op: string, body: Record<string, unknown>) => {
    const res = await fetch(`${svc.baseUrl}/agent/v1/${op}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agentId, ...body }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  return { agentId, call };
}

function resultFor(job: { id: string }, i: number) {
  const startedAt = Date.now() - 5;
  return {
    jobId: job.id,
    startedAt,
    stoppedAt: startedAt + 3,
    responseTime: 3 + i,
    hasFailures: i % 2 === 0,
    hasErrors: false,
    isDegraded: false,
    overMaxResponseTime: false,
    error: null,
    detail: { tcpCheckResult: { response: { data: `run ${i}` } } },
  };
}

describe('durability', () => {
  it('keeps every acknowledged result across kill -9 of the service', async () => {
    const svc = await startService();
    cleanup.push(() => svc.proc.kill('SIGKILL'));
    const pl = await createPrivateLocation(svc);
    const checks = 40;
    for (let i = 0; i < checks; i++) {
      const res = await svc.api('POST', '/v1/checks/tcp', {
        name: `durable ${i}`,
        frequency: 0,
        frequencyOffset: 10,
        privateLocations: [pl.slugName],
        request: { hostname: '127.0.0.1', port: 9 },
      });
      expect(res.status).toBe(201);
    }
    const agent = agentClient(svc, pl.key);
    expect((await agent.call('register', { version: '0.1.0', profile: 'uptime', runtimes: [], concurrency: 100 })).status).toBe(200);
    const jobs: { id: string; checkId: string }[] = [];
    await eventually(async () => {
      const lease = await agent.call('jobs/lease', { max: 100, waitMs: 1000, running: jobs.map((j) => j.id) });
      jobs.push(...lease.body.jobs);
      return jobs.length >= checks;
    });

    // Batches go out back to back; the service dies right after acknowledging the tenth, with
    // later ones possibly half-way through being stored.
    const acknowledged: string[] = [];
    const sends: Promise<unknown>[] = [];
    for (let b = 0; b < checks / 2; b++) {
      const batch = jobs.slice(b * 2, b * 2 + 2);
      sends.push(
        agent
          .call('results', { results: batch.map((j, i) => resultFor(j, b * 2 + i)) })
          .then((res) => {
            if (res.status === 200) acknowledged.push(...res.body.accepted);
            if (b === 9) svc.proc.child.kill('SIGKILL');
          })
          .catch(() => {}),
      );
    }
    await Promise.all(sends);
    expect(await svc.proc.exited).toBe(null);
    expect(acknowledged.length).toBeGreaterThanOrEqual(20);

    await svc.restart();
    const stored = new Map<string, any>();
    for (const checkId of new Set(jobs.map((j) => j.checkId))) {
      const res = await svc.api('GET', `/v1/check-results/${checkId}?limit=100&resultType=ALL`);
      expect(res.status).toBe(200);
      for (const r of res.body) stored.set(`${r.checkRunId}:${checkId}:${r.runLocation}`, r);
    }
    for (const jobId of acknowledged) {
      const i = jobs.findIndex((j) => j.id === jobId);
      expect(stored.get(jobId), `acknowledged result of ${jobId}`).toMatchObject({ responseTime: 3 + i, hasFailures: i % 2 === 0 });
    }
    // The checks' statuses take in every acknowledged FINAL result (a failed run is an attempt
    // to be retried), also those the service had not yet folded into them when it died.
    let statusesSeen = 0;
    for (const jobId of acknowledged) {
      const i = jobs.findIndex((j) => j.id === jobId);
      if (stored.get(jobId).resultType !== 'FINAL' || jobs.filter((j) => j.checkId === jobs[i].checkId).length > 1) continue;
      const status = await svc.api('GET', `/v1/check-statuses/${jobs[i].checkId}`);
      expect(status.status, `status of ${jobs[i].checkId}`).toBe(200);
      expect(status.body).toMatchObject({
        hasFailures: false,
        longestRun: 3 + i,
        shortestRun: 3 + i,
        lastCheckRunId: String(stored.get(jobId).checkRunId),
      });
      statusesSeen++;
    }
    expect(statusesSeen).toBeGreaterThanOrEqual(5);
  });
});
