// A service and one agent for a benchmark, and the backlog drain that measures the agent's top
// speed and CPU per check.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { postMany } from './http-load.js';
import { launch, cpuSeconds, cpuSplit, rssMb, sleep, type Child } from './procs.js';

export interface Stack {
  base: string;
  key: string;
  /** The service: replaced when a benchmark restarts it. */
  svc: Child;
  /** Its environment, for such a restart. */
  svcEnv: Record<string, string>;
  agent: Child;
  api<T = unknown>(method: string, p: string, body?: unknown): Promise<T>;
  metric(name: string, labels?: string): Promise<number>;
  stop(): Promise<void>;
}

export async function startStack(opts: {
  concurrency: number;
  env?: Record<string, string>;
  agentEnv?: Record<string, string>;
}): Promise<Stack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-bench-'));
  const key = `bench-${Date.now()}-key-0123456789`;
  // No request limit: check creation is measured at full speed.
  const svcEnv = {
    PORT: '0',
    OUTPOST_DATA_DIR: dir,
    OUTPOST_API_KEY: key,
    LOG_LEVEL: 'WARN',
    OUTPOST_API_RATE_LIMIT_PER_SECOND: '0',
    ...opts.env,
  };
  const svc = launch(['service'], svcEnv);
  const line = await svc.waitFor((l) => l.includes('Base URL'));
  const base = line.split('Base URL:')[1].trim();
  const api = async (method: string, p: string, body?: unknown) => {
    const res = await request(base + p, {
      method: method as 'GET',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${p}: ${res.statusCode} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const metric = async (name: string, labels = '') => {
    // Only the series asked for: a full scrape folds every latency summary, which the drain's
    // polling would otherwise bill to the service's CPU.
    const text = await (await request(`${base}/metrics?name=${name}`)).body.text();
    const line = text.split('\n').find((l) => l.startsWith(labels ? `${name}{${labels}}` : `${name} `));
    return line ? Number(line.split(' ').pop()) : NaN;
  };
  const pl = await api('POST', '/v1/private-locations', { name: 'bench', slugName: 'bench' });
  const agent = launch(['agent'], {
    API_KEY: pl.keys[0].rawKey,
    OUTPOST_URL: base,
    JOB_CONCURRENCY: String(opts.concurrency),
    AGENT_HEALTH_PORT: '0',
    AGENT_HEALTH_HOST: '127.0.0.1',
    OUTPOST_SPOOL_DIR: path.join(dir, 'spool'),
    LOG_LEVEL: 'INFO',
    ...opts.agentEnv,
  });
  await agent.waitFor((l) => l.includes('registered with the service'));
  const stack: Stack = {
    base,
    key,
    svc,
    svcEnv,
    agent,
    api,
    metric,
    async stop() {
      await agent.stop();
      await stack.svc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return stack;
}

export async function createChecks(stack: Stack, n: number, path: string, body: (i: number) => Record<string, unknown>): Promise<number> {
  const t0 = Date.now();
  await postMany(stack.base + path, { authorization: `Bearer ${stack.key}` }, n, (k) =>
    JSON.stringify({ name: `bench ${k}`, frequency: 0, frequencyOffset: 10, privateLocations: ['bench'], ...body(k) }),
  );
  return n / ((Date.now() - t0) / 1000);
}

/** Freeze the agent while runs pile up, thaw it, and time the drain. */
export async function drain(stack: Stack, backlogSeconds: number, idleBelow: number) {
  const agentPid = stack.agent.child.pid!;
  const svcPid = stack.svc.child.pid!;
  process.kill(agentPid, 'SIGSTOP');
  await sleep(backlogSeconds * 1000);
  const backlog = await stack.metric('outpost_jobs_pending');
  const r0 = await stack.metric('outpost_results_stored_total');
  const a0 = cpuSplit(agentPid);
  const s0 = cpuSeconds(svcPid);
  const t0 = Date.now();
  process.kill(agentPid, 'SIGCONT');
  let peakRss = 0;
  // Done when the backlog is leased and its results are stored: "pending" alone counts only
  // runs no agent has taken yet, and a fast agent takes the whole backlog long before it is run.
  for (;;) {
    await sleep(100);
    peakRss = Math.max(peakRss, rssMb(agentPid));
    const stored = (await stack.metric('outpost_results_stored_total')) - r0;
    if (((await stack.metric('outpost_jobs_pending')) < idleBelow && stored >= backlog) || Date.now() - t0 > 120_000) break;
  }
  const seconds = (Date.now() - t0) / 1000;
  const a1 = cpuSplit(agentPid);
  const n = (await stack.metric('outpost_results_stored_total')) - r0;
  return {
    backlog,
    checks: n,
    seconds,
    checksPerSecond: n / seconds,
    agentCpuSecondsPer1000: ((a1.user + a1.system - a0.user - a0.system) / n) * 1000,
    // The kernel's share: on loopback it includes delivering what the agent sends.
    agentSystemCpuSecondsPer1000: ((a1.system - a0.system) / n) * 1000,
    serviceCpuSecondsPer1000: ((cpuSeconds(svcPid) - s0) / n) * 1000,
    agentRssMaxMb: peakRss,
  };
}
