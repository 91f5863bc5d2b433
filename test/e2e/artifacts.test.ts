// Artifact uploads at the limit: 150 MB per artifact, refused with 413 above it, streamed so
// that neither the service nor the agent holds an artifact in memory; and browser jobs reach
// only agents that carry their runtime.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { startService, startAgent, createPrivateLocation, eventually, type Service, type AgentProc } from '../helpers/procs.js';

const MB = 1024 * 1024;
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
/**
 * How far a process's resident memory rises above where it was while `work` runs, sampled
 * every few milliseconds. Streaming (and collecting its buffers as it goes, src/stream-memory.ts)
 * keeps this small whatever the artifact's size.
 */
async function rssRise(pid: number, work: () => Promise<void>): Promise<number> {
  const base = rssMb(pid);
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 5);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, rssMb(pid)) - base;
}
/** The bound the benchmark holds uploads to: memory does not follow the size. */
const FLAT_MB = 20;
/** 160 MB of bytes made as they are read, so the test itself holds none of it. */
function bigBody(bytes: number): Readable {
  const chunk = Buffer.alloc(MB, 7);
  let left = bytes;
  return new Readable({
    read() {
      if (left <= 0) return this.push(null);
      const n = Math.min(left, chunk.length);
      left -= n;
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    },
  });
}

let svc: Service;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

/** A job of a private location, leased over the protocol by the test acting as its agent. */
async function leasedJob() {
  const pl = await createPrivateLocation(svc);
  const agentId = `test-agent-${Date.now()}`;
  const call = async (p: string, body: unknown) => {
    const res = await fetch(svc.baseUrl + p, {
      method: 'POST',
      headers: { authorization: `Bearer ${pl.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  expect((await call('/agent/v1/register', { agentId, version: 'test', runtimes: [] })).status).toBe(200);
  const check = await svc.api('POST', '/v1/checks/tcp', {
    name: 'artifact host',
    activated: false,
    privateLocations: [pl.slugName],
    request: { hostname: '127.0.0.1', port: 9 },
  });
  await svc.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [check.body.id] } });
  const lease = await call('/agent/v1/jobs/lease', { agentId, max: 1, waitMs: 5000 });
  expect(lease.body.jobs).toHaveLength(1);
  return { pl, agentId, jobId: lease.body.jobs[0].id as string };
}

describe('artifact uploads', { timeout: 120_000 }, () => {
  it('refuses 160 MB with 413, whether the size is declared or only counted, keeping nothing and no memory', async () => {
    const { pl, agentId, jobId } = await leasedJob();
    const url = (name: string) => `${svc.baseUrl}/agent/v1/artifacts?${new URLSearchParams({ agentId, jobId, name, type: 'video/webm' })}`;
    // Up to the limit is fine, and comes back byte for byte.
    const ok = await request(url('ok.bin'), {
      method: 'POST',
      headers: { authorization: `Bearer ${pl.key}`, 'content-type': 'application/octet-stream' },
      body: bigBody(3 * MB + 5),
    });
    expect(ok.statusCode).toBe(201);
    const link = (await ok.body.json()) as { url: string; size: number };
    expect(link.size).toBe(3 * MB + 5);
    const back = Buffer.from(await (await fetch(link.url, { headers: { authorization: `Bearer ${svc.apiKey}` } })).arrayBuffer());
    expect(back.length).toBe(3 * MB + 5);
    expect(back.every((b) => b === 7)).toBe(true);

    // Then the refusals, with memory measured once the service has handled an upload.
    const rise = await rssRise(svc.proc.child.pid!, async () => {
      const declared = await request(url('declared.webm'), {
        method: 'POST',
        headers: { authorization: `Bearer ${pl.key}`, 'content-type': 'application/octet-stream', 'content-length': String(160 * MB) },
        body: bigBody(160 * MB),
      });
      expect(declared.statusCode).toBe(413);
      expect(await declared.body.json()).toMatchObject({
        statusCode: 413,
        error: 'Payload Too Large',
        message: expect.stringMatching(/larger than the 150 MB limit/),
      });
      // Chunked: the service counts as it writes and gives up past the limit.
      const counted = await request(url('counted.webm'), {
        method: 'POST',
        headers: { authorization: `Bearer ${pl.key}`, 'content-type': 'application/octet-stream' },
        body: bigBody(160 * MB),
      });
      expect(counted.statusCode).toBe(413);
      await counted.body.dump();
    });
    expect(rise).toBeLessThan(FLAT_MB);
    // Nothing half-written stays behind: the one file is the upload that was accepted.
    const dir = path.join(svc.env.OUTPOST_DATA_DIR, 'artifacts');
    const stored = fs
      .readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => !fs.statSync(path.join(dir, f)).isDirectory());
    expect(stored.map((f) => path.basename(f))).toEqual([new URL(link.url).pathname.split('/').pop()]);
  });

  it('an agent whose run makes a 160 MB artifact reports it too large, memory flat, and keeps serving', async () => {
    const pl = await createPrivateLocation(svc);
    const agent: AgentProc = await startAgent(svc, pl.key, { JOB_CONCURRENCY: '2', LOG_LEVEL: 'INFO' });
    try {
      await agent.proc.waitLog((l) => l.msg === 'registered with the service');
      // A first small run, so what is measured is the big artifact and not the agent's first job.
      const warm = await svc.api('POST', '/v1/checks/browser', {
        name: 'warm',
        activated: false,
        privateLocations: [pl.slugName],
        script: "const { test } = require('@playwright/test'); test('w', async () => {});",
      });
      const w = await svc.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [warm.body.id] } });
      await svc.api('GET', `/v2/check-sessions/${w.body.sessions[0].checkSessionId}/completion?maxWaitSeconds=100`);
      const big = path.join(os.tmpdir(), `outpost-big-${Date.now()}.bin`);
      const check = await svc.api('POST', '/v1/checks/browser', {
        name: 'big artifact',
        activated: false,
        privateLocations: [pl.slugName],
        artifacts: { screenshot: 'off', trace: 'off', video: 'off' },
        script: `const { test } = require('@playwright/test');
const fs = require('fs');
test('makes a big file', async ({}, testInfo) => {
  const fd = fs.openSync(${JSON.stringify(big)}, 'w');
  const mb = Buffer.alloc(1024 * 1024, 1);
  for (let i = 0; i < 160; i++) fs.writeSync(fd, mb);
  fs.closeSync(fd);
  await testInfo.attach('recording', { path: ${JSON.stringify(big)}, contentType: 'video/webm' });
  fs.rmSync(${JSON.stringify(big)});
});`,
      });
      expect(check.status).toBe(201);
      let done!: { body: { status: string } };
      const rise = await rssRise(agent.proc.child.pid!, async () => {
        const trig = await svc.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [check.body.id] } });
        done = await svc.api('GET', `/v2/check-sessions/${trig.body.sessions[0].checkSessionId}/completion?maxWaitSeconds=100`);
      });
      expect(done.body.status).toBe('PASSED');
      const [result] = (await svc.api('GET', `/v1/check-results/${check.body.id}`)).body;
      expect(result.browserCheckResult.artifactErrors).toEqual([
        expect.stringMatching(/^recording-1\.bin: artifact too large \(167772160 bytes; the service takes at most 150 MB\)$/),
      ]);
      // The JSON report still made it.
      expect(result.browserCheckResult.playwrightTestJsonReportFile).toMatch(/\/v1\/artifacts\//);
      expect(rise).toBeLessThan(FLAT_MB);
      expect((await fetch(`${agent.healthUrl}/-/liveness`)).status).toBe(200);
    } finally {
      await agent.proc.kill();
    }
  });
});

describe('runtime routing', { timeout: 120_000 }, () => {
  it('hands a browser job only to an agent that carries its runtime; network checks keep flowing', async () => {
    const pl = await createPrivateLocation(svc);
    // This agent may carry only 2025.04, which is not installed: it carries nothing.
    const agent = await startAgent(svc, pl.key, { OUTPOST_RUNTIMES: '2025.04', JOB_CONCURRENCY: '2' });
    try {
      await agent.proc.waitLog((l) => l.runtimeId === '2025.04' && /not installed/.test(l.msg));
      await agent.proc.waitLog((l) => l.msg === 'registered with the service');
      const browser = await svc.api('POST', '/v1/checks/browser', {
        name: 'pinned',
        activated: false,
        privateLocations: [pl.slugName],
        runtimeId: '2026.04',
        script: "const { test } = require('@playwright/test'); test('t', async () => {});",
      });
      const tcp = await svc.api('POST', '/v1/checks/tcp', {
        name: 'tcp beside it',
        activated: false,
        privateLocations: [pl.slugName],
        request: { hostname: '127.0.0.1', port: 9 },
      });
      const b = await svc.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [browser.body.id] } });
      const t = await svc.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [tcp.body.id] } });
      const tcpDone = await svc.api('GET', `/v2/check-sessions/${t.body.sessions[0].checkSessionId}/completion?maxWaitSeconds=30`);
      expect(tcpDone.status).toBe(200);
      // The TCP run went through the same agent; the browser run still waits for a carrier.
      const pending = await svc.api('GET', `/v2/check-sessions/${b.body.sessions[0].checkSessionId}`);
      expect(pending.body.status).not.toMatch(/PASSED|FAILED/);
      expect(agent.proc.logs.some((l) => l.checkType === 'BROWSER')).toBe(false);

      // An agent that carries it picks it up.
      const carrier = await startAgent(svc, pl.key, { JOB_CONCURRENCY: '2' });
      try {
        const done = await svc.api('GET', `/v2/check-sessions/${b.body.sessions[0].checkSessionId}/completion?maxWaitSeconds=60`);
        expect(done.body.status).toBe('PASSED');
        await eventually(async () => carrier.proc.logs.some((l) => l.checkType === 'BROWSER'));
      } finally {
        await carrier.proc.kill();
      }
    } finally {
      await agent.proc.kill();
    }
  });
});
