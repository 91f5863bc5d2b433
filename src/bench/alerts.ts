// npm run bench, alerting: what judging results costs the service when everything passes (the
// same drain with OUTPOST_ALERTS off and on, interleaved), how soon 1,000 checks failing at once
// reach a webhook (stored → received), and how many of 1,000 notifications a kill -9 of the
// service in the middle of their burst loses.

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startStack, drain, createChecks, type Stack } from './stack.js';
import { launch, percentile, sleep } from './procs.js';
import { AlertEngine } from '../service/alerting.js';
import { openStore } from '../service/store/index.js';
import { createLogger } from '../log.js';
import type { Delivered } from '../service/store/results.js';

const CHECKS = Number(process.env.BENCH_ALERT_CHECKS ?? 1000);

/** A webhook receiver: the first arrival time of each notification id. */
async function receiver() {
  const firstAt = new Map<string, number>();
  let total = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      total++;
      const id = String(req.headers['x-outpost-notification-id']);
      if (!firstAt.has(id)) firstAt.set(id, Date.now());
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { firstAt, total: () => total, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() };
}

async function echoServer(): Promise<{ port: number; close(): void }> {
  const server = net.createServer((s) => s.on('data', (d) => s.write(d)).on('error', () => {}));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

/** Service CPU per 1,000 passing results in a drain, with alerting off or on. */
async function passingCost(alerts: 'on' | 'off', port: number): Promise<number> {
  const stack = await startStack({ concurrency: 100, env: { OUTPOST_ALERTS: alerts } });
  try {
    const hook = await stack.api<{ id: number }>('POST', '/v1/alert-channels', {
      type: 'WEBHOOK',
      config: { name: 'bench', url: 'http://127.0.0.1:9/', method: 'POST' },
    });
    await createChecks(stack, 2000, '/v1/checks/tcp', () => ({
      request: { hostname: '127.0.0.1', port },
      alertChannelSubscriptions: [{ alertChannelId: hook.id, activated: true }],
    }));
    return (await drain(stack, 20, 50)).serviceCpuSecondsPer1000;
  } finally {
    await stack.stop();
  }
}

/** Triggers every check at once and waits until `want` distinct notifications arrived. */
async function burst(stack: Stack, ids: string[], got: () => number, want: number, limitMs: number, midway?: () => Promise<void>) {
  await stack.api('POST', '/v2/check-sessions/trigger', { target: { checkId: ids } });
  const t0 = Date.now();
  let killed = false;
  while (got() < want && Date.now() - t0 < limitMs) {
    if (midway && !killed && got() >= want / 5) {
      killed = true;
      await midway();
    }
    await sleep(50);
  }
}

async function failingChecks(stack: Stack, hookUrl: string, n: number): Promise<string[]> {
  const channel = await stack.api<{ id: number }>('POST', '/v1/alert-channels', {
    type: 'WEBHOOK',
    config: { name: 'bench', url: hookUrl, method: 'POST' },
  });
  const ids: string[] = [];
  let i = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (i < n) {
        const k = i++;
        const c = await stack.api<{ id: string }>('POST', '/v1/checks/tcp', {
          name: `failing ${k}`,
          activated: false,
          privateLocations: ['bench'],
          // Nothing listens on port 9 here: every run fails at once.
          request: { hostname: '127.0.0.1', port: 9 },
          alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: true }],
        });
        ids.push(c.id);
      }
    }),
  );
  return ids;
}

/** created_at of every notification, by id (paged: 100 at a time). */
async function createdAt(stack: Stack): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (let page = 1; ; page++) {
    const rows = await stack.api<{ id: string; timestamp: string }[]>('GET', `/v1/alert-notifications?limit=100&page=${page}`);
    for (const r of rows) out.set(r.id, Date.parse(r.timestamp));
    if (rows.length < 100) return out;
  }
}

/**
 * The engine's own share, measured in this process where no other noise reaches it: decide()
 * over batches of 1,000 passing results of passing checks, µs per 1,000.
 */
async function engineMicros(): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-bench-engine-'));
  const store = await openStore({ dataDir: dir });
  try {
    const engine = new AlertEngine(
      store,
      createLogger('bench', 'ERROR'),
      () => '',
      () => {},
    );
    await engine.load();
    const batch: Delivered[] = Array.from({ length: 1000 }, (_, i) => ({
      accountId: 'a',
      job: {
        id: `c${i}:1:x`,
        checkId: `c${i}`,
        checkType: 'TCP',
        location: 'x',
        dueAt: 1,
        timeoutMs: 1,
        check: { name: 'n', request: {}, degradedResponseTime: null, maxResponseTime: null, shouldFail: false },
      },
      result: {
        jobId: `c${i}:1:x`,
        checkId: `c${i}`,
        location: 'x',
        dueAt: 1,
        startedAt: 1,
        stoppedAt: 2,
        responseTime: 1,
        hasFailures: false,
        hasErrors: false,
        isDegraded: false,
        overMaxResponseTime: false,
        error: null,
        detail: {},
      },
    }));
    for (let i = 0; i < 200; i++) await engine.decide(batch);
    const t0 = process.hrtime.bigint();
    const rounds = 2000;
    for (let i = 0; i < rounds; i++) await engine.decide(batch);
    return Number(process.hrtime.bigint() - t0) / 1000 / rounds;
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchAlerts(say: (s: string) => void): Promise<Record<string, number>> {
  const engineUsPer1000 = await engineMicros();
  const echo = await echoServer();
  const costs: Record<'on' | 'off', number[]> = { on: [], off: [] };
  try {
    // A drain's CPU varies ±20 % run to run here: three interleaved pairs, compared by median.
    for (let i = 0; i < 3; i++) for (const mode of ['off', 'on'] as const) costs[mode].push(await passingCost(mode, echo.port));
  } finally {
    echo.close();
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const off = med(costs.off);
  const on = med(costs.on);

  // 1,000 failing at once: stored → received.
  const hook = await receiver();
  const stack = await startStack({ concurrency: 100 });
  let latencyP50: number;
  let latencyP99: number;
  let lost: number;
  let duplicates: number;
  try {
    const ids = await failingChecks(stack, hook.url, CHECKS);
    await burst(stack, ids, () => hook.firstAt.size, CHECKS, 120_000);
    const created = await createdAt(stack);
    const lat = [...hook.firstAt].map(([id, at]) => at - (created.get(id) ?? at)).sort((a, b) => a - b);
    latencyP50 = percentile(lat, 50);
    latencyP99 = percentile(lat, 99);

    // Another 1,000, and the service killed once a fifth of them arrived.
    const before = hook.firstAt.size;
    const more = await failingChecks(stack, hook.url, CHECKS);
    const port = new URL(stack.base).port;
    const restart = async () => {
      stack.svc.child.kill('SIGKILL');
      await new Promise((r) => stack.svc.child.once('exit', r));
      const again = launch(['service'], { ...stack.svcEnv, PORT: port });
      await again.waitFor((l) => l.includes('Base URL'));
      stack.svc = again;
    };
    await burst(stack, more, () => hook.firstAt.size - before, CHECKS, 180_000, restart);
    lost = CHECKS - (hook.firstAt.size - before);
    duplicates = hook.total() - hook.firstAt.size;
  } finally {
    hook.close();
    await stack.stop();
  }
  const figures = {
    engineMicrosecondsPer1000Passing: engineUsPer1000,
    serviceCpuPer1000AlertsOff: off,
    serviceCpuPer1000AlertsOn: on,
    alertingCostRatio: on / off,
    failingToWebhookP50Ms: latencyP50,
    failingToWebhookP99Ms: latencyP99,
    notificationsLostAcrossKill9: lost,
    notificationsDeliveredTwice: duplicates,
  };
  say('');
  say(
    `Alerting (${CHECKS} checks; CPU runs off ${costs.off.map((c) => c.toFixed(3)).join(', ')}; on ${costs.on.map((c) => c.toFixed(3)).join(', ')})`,
  );
  say('| figure | value | target |');
  say('|---|---|---|');
  say(
    `| service CPU-s per 1,000 passing results, alerting off / on (median of 3 each) | ${off.toFixed(3)} / ${on.toFixed(3)} (${((on / off - 1) * 100).toFixed(1)} %) | ≤ +10 % |`,
  );
  say(
    `| the engine's own time per 1,000 passing results (in-process), µs | ${engineUsPer1000.toFixed(1)} (${((engineUsPer1000 / 1e6 / off) * 100).toFixed(3)} % of the service's CPU for them) | |`,
  );
  say(
    `| failing FINAL result stored → webhook received, p50 / p99 ms (${CHECKS} at once) | ${latencyP50.toFixed(0)} / ${latencyP99.toFixed(0)} | p99 ≤ 1000 |`,
  );
  say(`| notifications lost across a kill -9 during a burst of ${CHECKS} | ${lost} (delivered twice: ${duplicates}) | 0 |`);
  return figures;
}
