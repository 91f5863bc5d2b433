// npm run bench, browser part: browser checks per minute at JOB_CONCURRENCY 1 and 4, the
// overhead of a run through Outpost against the same script run directly by Playwright's test
// runner (as `npx playwright test` would), what the sandbox (a browser per job) costs against the
// shared browser, memory per concurrent browser job, and a 150 MB artifact's upload: throughput
// and the peak memory of agent and service.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startStack, type Stack } from './stack.js';
import { machineCpuSeconds, rssMb, sleep, treeRssMb } from './procs.js';
import { runtimeModules } from '../runtimes/catalog.js';
import { CHROMIUM_FLAGS } from '../checks/pw/browser-server.js';
import { DEFAULT_RUNTIME_ID } from '../domain/limits.js';

const RUNS = Number(process.env.BENCH_BROWSER_RUNS ?? 6);
const MB = 1024 * 1024;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const NO_ARTIFACTS = { screenshot: 'off', trace: 'off', video: 'off' };

function site(): Promise<{ url: string; close(): void }> {
  const server = http.createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><title>Bench shop</title><h1>Welcome</h1><ul>${'<li>item</li>'.repeat(50)}</ul>`);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, close: () => server.close() }),
    ),
  );
}

const scriptFor = (url: string) => `import { test, expect } from '@playwright/test';
test('home', async ({ page }) => {
  await page.goto('${url}');
  await expect(page.locator('h1')).toHaveText('Welcome');
});`;

/** CPU seconds of this process's children that have exited (the runner, its worker, its browser). */
function reapedChildrenCpu(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / 100;
}

/** The same script run the way a user runs it: the runtime's test runner, its own browser. */
// Not execFileSync: the page it loads is served by this very process.
async function direct(script: string): Promise<{ wallMs: number; cpuS: number }[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-bench-direct-'));
  const modules = runtimeModules(DEFAULT_RUNTIME_ID);
  fs.writeFileSync(path.join(dir, 'home.spec.ts'), script);
  fs.writeFileSync(
    path.join(dir, 'playwright.config.cjs'),
    `module.exports = { testDir: '.', workers: 1, reporter: 'line', use: { launchOptions: { executablePath: '/usr/bin/chromium', args: ${JSON.stringify(CHROMIUM_FLAGS)} } } };`,
  );
  const out: { wallMs: number; cpuS: number }[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const t0 = Date.now();
      const c0 = reapedChildrenCpu();
      await promisify(execFile)(
        process.execPath,
        [path.join(modules, '@playwright', 'test', 'cli.js'), 'test', '-c', 'playwright.config.cjs'],
        { cwd: dir, env: { ...process.env, NODE_PATH: modules } },
      );
      out.push({ wallMs: Date.now() - t0, cpuS: reapedChildrenCpu() - c0 });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

async function browserCheck(stack: Stack, script: string, artifacts: object = NO_ARTIFACTS): Promise<string> {
  const res = await stack.api<{ id: string }>('POST', '/v1/checks/browser', {
    name: 'bench browser',
    activated: false,
    privateLocations: ['bench'],
    script,
    artifacts,
  });
  return res.id;
}

async function runSessions(stack: Stack, checkIds: string[]): Promise<void> {
  const { sessions } = await stack.api<{ sessions: { checkSessionId: string }[] }>('POST', '/v2/check-sessions/trigger', {
    target: { checkId: checkIds },
  });
  await Promise.all(sessions.map((s) => stack.api('GET', `/v2/check-sessions/${s.checkSessionId}/completion?maxWaitSeconds=300`)));
}

/** `sandbox` off: the agent's shared browser, as before the sandbox; auto: a sandbox and browser per job. */
async function throughput(url: string, concurrency: number, sandbox: 'auto' | 'off' = 'auto') {
  const stack = await startStack({ concurrency, agentEnv: { BROWSER_CONCURRENCY: String(concurrency), OUTPOST_SANDBOX: sandbox } });
  try {
    const agent = stack.agent.child.pid!;
    const warm = await browserCheck(stack, scriptFor(url));
    await runSessions(stack, [warm]); // starts the shared browser
    const idleRss = treeRssMb(agent);
    const ids = await Promise.all(Array.from({ length: concurrency * 4 }, () => browserCheck(stack, scriptFor(url))));
    let peak = idleRss;
    const sampler = setInterval(() => (peak = Math.max(peak, treeRssMb(agent))), 100);
    const c0 = machineCpuSeconds();
    const t0 = Date.now();
    await runSessions(stack, ids);
    const seconds = (Date.now() - t0) / 1000;
    const cpu = machineCpuSeconds() - c0;
    clearInterval(sampler);
    const perRun: number[] = [];
    if (concurrency === 1) {
      for (let i = 0; i < RUNS; i++) {
        const s0 = Date.now();
        await runSessions(stack, [warm]);
        perRun.push(Date.now() - s0);
      }
    }
    return {
      concurrency,
      runs: ids.length,
      checksPerMinute: (ids.length / seconds) * 60,
      cpuSecondsPerRun: cpu / ids.length,
      idleTreeRssMb: idleRss,
      rssPerConcurrentJobMb: (peak - idleRss) / concurrency,
      sequentialRunMs: perRun.length ? median(perRun) : null,
    };
  } finally {
    await stack.stop();
  }
}

async function upload150(): Promise<Record<string, number>> {
  const stack = await startStack({ concurrency: 1, agentEnv: {} });
  const big = path.join(os.tmpdir(), `outpost-bench-150-${Date.now()}.bin`);
  try {
    const agent = stack.agent.child.pid!;
    const svc = stack.svc.child.pid!;
    const id = await browserCheck(
      stack,
      `const { test } = require('@playwright/test');
const fs = require('fs');
test('artifact', async ({}, testInfo) => {
  const fd = fs.openSync(${JSON.stringify(big)}, 'w');
  const mb = Buffer.alloc(1024 * 1024, 1);
  for (let i = 0; i < 149; i++) fs.writeSync(fd, mb);
  fs.closeSync(fd);
  await testInfo.attach('recording', { path: ${JSON.stringify(big)}, contentType: 'video/webm' });
});`,
    );
    // A first run loads Playwright's server side into the agent and starts the browser: idle
    // memory is measured after it, so the figure is the upload's alone.
    await runSessions(stack, [
      await browserCheck(
        stack,
        "const { test } = require('@playwright/test'); test('warm', async ({ page }) => { await page.setContent('<p>warm</p>'); });",
      ),
    ]);
    await sleep(2000);
    const idleAgent = rssMb(agent);
    const idleSvc = rssMb(svc);
    let peakAgent = idleAgent;
    let peakSvc = idleSvc;
    const sampler = setInterval(() => {
      peakAgent = Math.max(peakAgent, rssMb(agent));
      peakSvc = Math.max(peakSvc, rssMb(svc));
    }, 20);
    await runSessions(stack, [id]);
    clearInterval(sampler);
    type Asset = { name: string; size: number; uploadMs: number };
    const [result] = await stack.api<{ browserCheckResult?: { jobAssets?: Asset[]; artifactErrors?: unknown } }[]>(
      'GET',
      `/v1/check-results/${id}`,
    );
    const asset = (result.browserCheckResult?.jobAssets ?? []).find((a) => a.name.startsWith('recording'));
    if (!asset) throw new Error(`150 MB artifact was not uploaded: ${JSON.stringify(result.browserCheckResult?.artifactErrors ?? result)}`);
    return {
      sizeMb: asset.size / MB,
      uploadMs: asset.uploadMs,
      throughputMbPerS: asset.size / MB / (asset.uploadMs / 1000),
      agentIdleRssMb: idleAgent,
      agentPeakRiseMb: peakAgent - idleAgent,
      serviceIdleRssMb: idleSvc,
      servicePeakRiseMb: peakSvc - idleSvc,
    };
  } finally {
    fs.rmSync(big, { force: true });
    await stack.stop();
  }
}

export async function benchBrowser(say: (s: string) => void): Promise<Record<string, unknown>> {
  const web = await site();
  try {
    const script = scriptFor(web.url);
    const directRuns = await direct(script);
    const c1 = await throughput(web.url, 1);
    const shared = await throughput(web.url, 1, 'off');
    const c4 = await throughput(web.url, 4);
    const upload = await upload150();
    const directMs = median(directRuns.map((r) => r.wallMs));
    const ratio = c1.sequentialRunMs! / directMs;
    say('');
    say(`Browser checks (runtime ${DEFAULT_RUNTIME_ID}, Debian Chromium, ${os.cpus().length} cores; artifacts off)`);
    say('| figure | value | target |');
    say('|---|---|---|');
    say(`| browser checks per minute, JOB_CONCURRENCY 1 | ${c1.checksPerMinute.toFixed(1)} | |`);
    say(`| browser checks per minute, JOB_CONCURRENCY 4 | ${c4.checksPerMinute.toFixed(1)} | |`);
    say(
      `| CPU-s per run, whole machine (c1 / c4; service, agent, runner, browser) | ${c1.cpuSecondsPerRun.toFixed(2)} / ${c4.cpuSecondsPerRun.toFixed(2)} | |`,
    );
    say(`| CPU-s per run of the direct runner (runner, worker, its own browser) | ${median(directRuns.map((r) => r.cpuS)).toFixed(2)} | |`);
    say(`| one run through Outpost (trigger → result), median ms | ${c1.sequentialRunMs} | |`);
    say(`| the same script with Playwright's test runner directly, median ms | ${directMs} | |`);
    say(`| ratio Outpost / direct | ${ratio.toFixed(2)} | ≤ 1.2 |`);
    say(`| one run without the sandbox (the agent's shared browser), median ms | ${shared.sequentialRunMs} | |`);
    say(
      `| ratio sandboxed (own browser) / shared browser, per run | ${(c1.sequentialRunMs! / shared.sequentialRunMs!).toFixed(2)} | ≤ 1.3 |`,
    );
    say(`| CPU-s per run without the sandbox, whole machine (c1) | ${shared.cpuSecondsPerRun.toFixed(2)} | |`);
    say(`| agent RSS per concurrent browser job (c4, process tree) MB | ${c4.rssPerConcurrentJobMb.toFixed(0)} | |`);
    say(`| 150 MB artifact upload, MB/s | ${upload.throughputMbPerS.toFixed(0)} | |`);
    say(
      `| agent / service RSS rise during the upload MB | ${upload.agentPeakRiseMb.toFixed(1)} / ${upload.servicePeakRiseMb.toFixed(1)} | each ≤ 20 |`,
    );
    return { direct: directRuns, c1, shared, c4, upload, ratio, sandboxRatio: c1.sequentialRunMs! / shared.sequentialRunMs! };
  } finally {
    web.close();
  }
}
