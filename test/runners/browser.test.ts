// The browser runner with real Chromium: what happens when the run cannot happen as asked
// (runtime missing, browser missing) and when the browser dies under a running script.

import { describe, it, expect, afterAll } from 'vitest';
import http from 'node:http';
import { runBrowser } from '../../src/checks/browser.js';
import { BrowserServers } from '../../src/checks/pw/browser-server.js';
import { DEFAULT_RUNTIMES_DIR } from '../../src/runtimes/catalog.js';
import type { BrowserEnv } from '../../src/checks/types.js';
import { jobOf, runJob, log, type Job } from '../helpers/runner.js';

const servers: BrowserServers[] = [];
function env(chromium = '/usr/bin/chromium', carried = ['2026.04']): BrowserEnv {
  const s = new BrowserServers(chromium, log);
  servers.push(s);
  return {
    servers: s,
    runtimesDir: DEFAULT_RUNTIMES_DIR,
    chromiumPath: '/usr/bin/chromium',
    carried: new Set(carried),
    sandbox: null,
    sandboxMissing: 'not asked for',
    sandboxRequired: false,
  };
}
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});
const job = (script: string, runtimeId = '2026.04', timeoutMs = 60_000) =>
  jobOf('BROWSER', {}, { runtimeId, timeoutMs, check: { code: { script, artifacts: { screenshot: 'off', trace: 'off' } } } });
const run = (j: Job, browser: BrowserEnv) => runJob(runBrowser, j, { browser });
const ok = "const { test } = require('@playwright/test'); test('t', async ({ page }) => { await page.setContent('<h1>hi</h1>'); });";

describe('browser runner', { timeout: 120_000 }, () => {
  it('fails a job pinned to a runtime the agent does not carry, without running it under another', async () => {
    const out = await run(job(ok, '2025.04'), env());
    expect(out.hasErrors).toBe(true);
    expect(out.error).toBe('this agent does not carry runtime 2025.04 (it carries 2026.04); the check was not run under another runtime');
  });

  it('resolves modules from the pinned runtime only, never from the agent’s own packages', async () => {
    const out = await run(
      job(`const { test, expect } = require('@playwright/test');
test('modules', async () => {
  expect(require('playwright-core/package.json').version).toBe('1.58.2');
  require('pino');
});`),
      env(),
    );
    expect(out.error).toMatch(/Cannot find module 'pino'/);
  });

  it('runs each job under its own runtime’s Playwright, side by side', async () => {
    const e = env('/usr/bin/chromium', ['2024.09', '2026.04']);
    const script =
      "const { test, expect } = require('@playwright/test'); test('v', async ({ page }) => { await page.setContent('<h1>v</h1>'); await expect(page.locator('h1')).toHaveText('v'); console.log('playwright ' + require('playwright-core/package.json').version); });";
    const [old, current] = await Promise.all([run(job(script, '2024.09'), e), run(job(script, '2026.04'), e)]);
    expect([old.error, current.error]).toEqual([null, null]);
    expect((old.detail.browserCheckResult as any).runtimeVersion).toBe('2024.09');
    expect(JSON.stringify((old.detail.browserCheckResult as any).jobLog)).toContain('playwright 1.48.2');
    expect(JSON.stringify((current.detail.browserCheckResult as any).jobLog)).toContain('playwright 1.58.2');
  });

  it('reuses one browser across jobs', async () => {
    const e = env();
    expect((await run(job(ok), e)).error).toBeNull();
    const pid = await e.servers.pid('2026.04');
    expect((await run(job(ok), e)).error).toBeNull();
    expect(await e.servers.pid('2026.04')).toBe(pid);
  });

  it('stops a run at its time limit and says so, also when the page never loads', async () => {
    // A server that takes requests and never answers them.
    const held: http.ServerResponse[] = [];
    const silent = http.createServer((_req, res) => void held.push(res));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const out = await run(
      job(
        `const { test } = require('@playwright/test');
test('never loads', async ({ page }) => { await page.goto('http://127.0.0.1:${port}/'); });`,
        '2026.04',
        25_000,
      ),
      env(),
    );
    expect(out.error).toMatch(/^never loads: Test timeout of \d+ms exceeded/);
    for (const r of held) r.destroy();
    silent.close();
  });

  it('fails loudly when the browser cannot start, never passing', async () => {
    const out = await run(job(ok), env('/nonexistent/chromium'));
    expect(out.hasErrors).toBe(true);
    expect(out.error).toMatch(/^the browser could not start: /);
  });

  it('reports a browser that dies mid-run as a failure, and starts a new one for the next job', async () => {
    const e = env();
    let reached!: () => void;
    const started = new Promise<void>((r) => (reached = r));
    const site = http.createServer((req, res) => {
      if (req.url === '/loaded') reached();
      res.end('<h1>long page</h1>');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    const port = (site.address() as { port: number }).port;
    const running = run(
      job(`const { test } = require('@playwright/test');
test('waits', async ({ page }) => {
  await page.goto('http://127.0.0.1:${port}/loaded');
  await page.waitForTimeout(30000);
});`),
      e,
    );
    await started;
    process.kill((await e.servers.pid('2026.04'))!, 'SIGKILL');
    const out = await running;
    expect(out.error).toMatch(/closed|disconnected|crashed/i);
    expect(out.hasErrors).toBeFalsy();
    site.close();
    const next = await run(job(ok), e);
    expect(next.error).toBeNull();
  });
});
