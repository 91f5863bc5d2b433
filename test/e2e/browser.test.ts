// Browser, multi-step and Playwright checks end to end: `outpost start` (its built-in agent
// carries runtime 2026.04) runs them in Debian's Chromium against pages served here; results,
// artifacts and runtimes through the API.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { startService, startAgent, createPrivateLocation, eventually, type Service } from '../helpers/procs.js';

let svc: Service;
let site: http.Server;
let base: string;
let removedDir: string;

beforeAll(async () => {
  // A copy of the runtime records in which one runtime has been removed.
  removedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-runtimes-'));
  // Readable by all, as an installed runtimes folder is: sandboxed runs read it as nobody.
  fs.chmodSync(removedDir, 0o755);
  fs.cpSync(path.resolve('runtimes'), removedDir, { recursive: true, filter: (src) => !src.includes('node_modules') });
  const rec = JSON.parse(fs.readFileSync(path.join(removedDir, '2022.10', 'runtime.json'), 'utf8'));
  fs.writeFileSync(
    path.join(removedDir, '2022.10', 'runtime.json'),
    JSON.stringify({ ...rec, stage: 'REMOVED', runtimeEndOfLife: '2025-01-01' }),
  );
  // The built-in agent reads the same folder: it carries the runtime the test setup installed.
  fs.symlinkSync(path.resolve('runtimes/2026.04/node_modules'), path.join(removedDir, '2026.04', 'node_modules'));
  svc = await startService({ OUTPOST_RUNTIMES_DIR: removedDir, OUTPOST_RUNTIMES: '2026.04' }, 'start');
  site = http.createServer((req, res) => {
    if (req.url === '/api/items') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify({ items: [{ id: 1, name: 'lamp' }] }));
    }
    res.setHeader('content-type', 'text/html');
    res.end(
      `<!doctype html><title>Outpost shop</title><h1>Welcome</h1><p>${'x'.repeat(200)}</p><script>console.error("widget failed")</script>`,
    );
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
});
afterAll(async () => {
  await svc?.stop();
  site?.close();
  fs.rmSync(removedDir, { recursive: true, force: true });
});

/** Creates a check (inactive: it runs when triggered) and runs it once as a session. */
async function runOnce(kind: 'browser' | 'multistep' | 'playwright', body: Record<string, unknown>) {
  const made = await svc.api('POST', `/v1/checks/${kind}`, { name: `${kind} check`, activated: false, locations: ['eu-west-1'], ...body });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const trig = await svc.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [made.body.id] } });
  expect(trig.status).toBe(201);
  const done = await svc.api('GET', `/v2/check-sessions/${trig.body.sessions[0].checkSessionId}/completion?maxWaitSeconds=120`);
  expect(done.status).toBe(200);
  const [result] = (await svc.api('GET', `/v1/check-results/${made.body.id}`)).body;
  return { check: made.body, session: done.body, result };
}

describe('runtimes', () => {
  it('lists every runtime with the public property names, and shows one', async () => {
    const list = await svc.api('GET', '/v1/runtimes');
    expect(list.status).toBe(200);
    expect(list.body.map((r: any) => r.name)).toEqual(['2026.04', '2025.04', '2024.09', '2024.02', '2023.09', '2023.02', '2022.10']);
    const newest = list.body[0];
    expect(newest).toMatchObject({
      name: '2026.04',
      stage: 'CURRENT',
      multiStepSupport: true,
      nodeJsVersion: 'v24.13.1',
      description: 'Main updates are Playwright 1.58.2',
    });
    expect(newest.dependencies).toMatchObject({ '@playwright/test': '1.58.2', playwright: '1.58.2', http: '24.13.1' });
    expect(list.body.filter((r: any) => r.stage === 'CURRENT')).toHaveLength(1);
    expect((await svc.api('GET', '/v1/runtimes/2023.02')).body).toMatchObject({
      name: '2023.02',
      multiStepSupport: false,
      nodeJsVersion: 'v16.20.2',
    });
    const missing = await svc.api('GET', '/v1/runtimes/1999.01');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  it('checks runtimeId: unknown, removed, and multi-step on a runtime without it are refused', async () => {
    const script = "const { test } = require('@playwright/test'); test('t', async () => {});";
    const unknown = await svc.api('POST', '/v1/checks/browser', { name: 'x', script, runtimeId: '2019.01' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/runtimeId/);
    const removed = await svc.api('POST', '/v1/checks/browser', { name: 'x', script, runtimeId: '2022.10' });
    expect(removed.status).toBe(400);
    expect(removed.body).toMatchObject({
      statusCode: 400,
      message: 'runtime 2022.10 has been removed: pick another (GET /v1/runtimes)',
      attributes: { field: 'runtimeId' },
    });
    const noSteps = await svc.api('POST', '/v1/checks/multistep', { name: 'x', script, runtimeId: '2023.02' });
    expect(noSteps.status).toBe(400);
    expect(noSteps.body.message).toBe('runtime 2023.02 does not support multi-step checks');
    const ok = await svc.api('POST', '/v1/checks/browser', { name: 'x', script, runtimeId: '2024.09', activated: false });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ checkType: 'BROWSER', runtimeId: '2024.09', script, frequency: 10 });
    expect(ok.body).not.toHaveProperty('request');
    // The generic update (op 2) carries the browser check's script.
    const put = await svc.api('PUT', `/v1/checks/${ok.body.id}`, { heartbeat: {}, script: `${script}\n// v2`, runtimeId: '2026.04' });
    expect(put.body).toEqual({ checkType: 'BROWSER', id: ok.body.id });
    expect((await svc.api('GET', `/v1/checks/${ok.body.id}`)).body).toMatchObject({ script: `${script}\n// v2`, runtimeId: '2026.04' });
  });
});

describe('browser checks', { timeout: 180_000 }, () => {
  it('a passing @playwright/test script: console, network, web vitals, and artifacts that download intact', async () => {
    const { session, result } = await runOnce('browser', {
      script: `import { test, expect } from '@playwright/test';
test('shop home', async ({ page }) => {
  await page.goto('${base}/');
  await expect(page.locator('h1')).toHaveText('Welcome');
  expect(process.env.SHOP_USER).toBe('ada');
});`,
      environmentVariables: [{ key: 'SHOP_USER', value: 'ada' }],
      artifacts: { screenshot: 'on', trace: 'on', video: 'on' },
    });
    expect(session.status).toBe('PASSED');
    expect(result).toMatchObject({ hasFailures: false, hasErrors: false, apiCheckResult: null });
    const b = result.browserCheckResult;
    expect(b.runtimeVersion).toBe('2026.04');
    expect(b.errors).toEqual([]);
    expect(b.tests).toEqual([expect.objectContaining({ title: 'shop home', status: 'passed' })]);
    expect(b.pages[0].url).toBe(`${base}/`);
    for (const k of ['LCP', 'FCP', 'TTFB']) expect(b.pages[0].webVitals[k]).toBeGreaterThan(0);
    expect(b.pages[0].webVitals).toMatchObject({ CLS: expect.any(Number), TBT: expect.any(Number) });
    expect(b.consoleLog).toContainEqual(expect.objectContaining({ level: 'error', text: 'widget failed' }));
    expect(b.networkLog).toContainEqual(expect.objectContaining({ url: `${base}/`, method: 'GET', status: 200 }));
    expect(b.traceSummary).toMatchObject({ consoleErrors: 1, networkErrors: 0, userScriptErrors: 0 });

    // Artifacts: a PNG screenshot and a trace that is a zip, byte for byte as stored.
    expect(b.screenshots).toHaveLength(1);
    expect(b.playwrightTestTraces).toHaveLength(1);
    const png = await fetch(b.screenshots[0], { headers: { authorization: `Bearer ${svc.apiKey}` } });
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const pngBytes = Buffer.from(await png.arrayBuffer());
    expect(pngBytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const trace = await fetch(b.playwrightTestTraces[0], { headers: { authorization: `Bearer ${svc.apiKey}` } });
    const zip = Buffer.from(await trace.arrayBuffer());
    expect(zip.length).toBe(Number(trace.headers.get('content-length')));
    expect(zip.subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));
    // The zip's end-of-central-directory record is there: the file is whole.
    expect(zip.lastIndexOf(Buffer.from('PK\x05\x06', 'latin1'))).toBeGreaterThan(zip.length - 1024);
    // The video, encoded by the system's ffmpeg: a WebM (EBML) file.
    expect(b.playwrightTestVideos).toHaveLength(1);
    const video = Buffer.from(
      await (await fetch(b.playwrightTestVideos[0], { headers: { authorization: `Bearer ${svc.apiKey}` } })).arrayBuffer(),
    );
    expect(video.subarray(0, 4)).toEqual(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]));
    // Without the API key there is nothing to see.
    expect((await fetch(b.playwrightTestTraces[0])).status).toBe(401);
  });

  it('variables reach the script as process.env, the agent’s own never; secrets are masked in the result', async () => {
    expect((await svc.api('POST', '/v1/variables', { key: 'SHOP_TOKEN', value: 'tok-4242-secret', secret: true })).status).toBe(201);
    const { session, result } = await runOnce('browser', {
      script: `const { test, expect } = require('@playwright/test');
test('env', async ({ page }) => {
  expect(process.env.OUTPOST_API_KEY).toBeUndefined();
  expect(process.env.API_KEY).toBeUndefined();
  await page.setContent('<p>x</p>');
  await page.evaluate((t) => console.log('token is ' + t), process.env.SHOP_TOKEN);
  throw new Error('refused ' + process.env.SHOP_TOKEN);
});`,
    });
    expect(session.status).toBe('FAILED');
    const b = result.browserCheckResult;
    expect(b.errors[0].message).toMatch(/^Error: refused \*{5}/);
    expect(b.consoleLog).toContainEqual(expect.objectContaining({ text: 'token is *****' }));
    expect(JSON.stringify(result)).not.toContain('tok-4242-secret');
    const report = await (await fetch(b.playwrightTestJsonReportFile, { headers: { authorization: `Bearer ${svc.apiKey}` } })).text();
    expect(report).toContain('refused *****');
    expect(report).not.toContain('tok-4242-secret');
  });

  it('a failing expect fails the check and says which', async () => {
    const { session, result } = await runOnce('browser', {
      script: `const { test, expect } = require('@playwright/test');
test('title', async ({ page }) => {
  await page.goto('${base}/');
  await expect(page).toHaveTitle('Another shop', { timeout: 1000 });
});`,
    });
    expect(session.status).toBe('FAILED');
    expect(result.hasFailures).toBe(true);
    expect(result.browserCheckResult.tests[0].status).toBe('failed');
    expect(result.browserCheckResult.errors[0].message).toMatch(/toHaveTitle/);
  });

  it('a plain playwright script gets a browser from the agent; a throw fails it with its message', async () => {
    const pass = await runOnce('browser', {
      script: `const { chromium } = require('playwright');
const browser = await chromium.launch();
const page = await browser.newPage();
await page.goto('${base}/');
if ((await page.textContent('h1')) !== 'Welcome') throw new Error('no welcome');
await browser.close();`,
    });
    expect(pass.session.status).toBe('PASSED');
    expect(pass.result.browserCheckResult.pages[0].url).toBe(`${base}/`);
    const fail = await runOnce('browser', {
      script: `import { chromium } from 'playwright';
const browser = await chromium.launch();
const page = await browser.newPage();
await page.goto('${base}/');
throw new Error('basket is empty');`,
    });
    expect(fail.session.status).toBe('FAILED');
    expect(fail.result.browserCheckResult.errors[0].message).toMatch(/basket is empty/);
  });

  it('a page that never loads fails at the script’s own timeout', async () => {
    const { session, result } = await runOnce('browser', {
      script: `const { test } = require('@playwright/test');
test('slow', async ({ page }) => { await page.goto('http://127.0.0.1:9/', { timeout: 2000 }); });`,
    });
    expect(session.status).toBe('FAILED');
    expect(result.browserCheckResult.errors[0].message).toMatch(/ERR_CONNECTION_REFUSED|page\.goto/);
  });
});

/** A browser check that looks for what its agent holds; it passes only when each look fails. */
function hostileScript(secret: string, dataDir: string): string {
  return `const { test, expect } = require('@playwright/test');
const fs = require('fs');
const { execSync } = require('child_process');
test('looks around', async () => {
  const environ = fs.readdirSync('/proc').filter((d) => /^\\d+$/.test(d))
    .map((p) => { try { return fs.readFileSync('/proc/' + p + '/environ', 'utf8'); } catch { return ''; } }).join('');
  expect(environ.includes(${JSON.stringify(secret)}), 'a key in some process environment').toBe(false);
  expect(() => fs.readdirSync(${JSON.stringify(dataDir)}), 'the data directory').toThrow(/ENOENT/);
  if (${process.getuid!() === 0}) expect(execSync('id -u').toString().trim(), 'the user').toBe('65534');
});`;
}

describe('sandboxed checks cannot reach their agent', { timeout: 180_000 }, () => {
  it('on the built-in agent: not the API key in the service’s environment, not the data directory', async () => {
    const { session, result } = await runOnce('browser', { script: hostileScript(svc.apiKey, svc.env.OUTPOST_DATA_DIR!) });
    expect(result.browserCheckResult.errors).toEqual([]);
    expect(session.status).toBe('PASSED');
    expect(result.browserCheckResult.tests).toHaveLength(1);
  });

  it('on a private-location agent: not its private-location key, not its spool', async () => {
    const pl = await createPrivateLocation(svc);
    const agent = await startAgent(svc, pl.key, { OUTPOST_RUNTIMES_DIR: removedDir, OUTPOST_RUNTIMES: '2026.04' });
    try {
      const made = await svc.api('POST', '/v1/checks/browser', {
        name: 'hostile',
        activated: false,
        locations: [],
        privateLocations: [pl.slugName],
        script: hostileScript(pl.key, agent.spoolDir),
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const trig = await svc.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [made.body.id] } });
      const done = await svc.api('GET', `/v2/check-sessions/${trig.body.sessions[0].checkSessionId}/completion?maxWaitSeconds=120`);
      const [result] = await eventually(async () => (await svc.api('GET', `/v1/check-results/${made.body.id}`)).body);
      expect(result.browserCheckResult.errors).toEqual([]);
      expect(done.body.status).toBe('PASSED');
    } finally {
      await agent.proc.kill('SIGTERM');
    }
  });
});

describe('multi-step checks', { timeout: 180_000 }, () => {
  it('runs test.step()s against an API with the request fixture, timing each step', async () => {
    const { session, result } = await runOnce('multistep', {
      script: `import { test, expect } from '@playwright/test';
test('items api', async ({ request }) => {
  await test.step('list items', async () => {
    const res = await request.get('${base}/api/items');
    expect(res.status()).toBe(200);
  });
  await test.step('first item is a lamp', async () => {
    const body = await (await request.get('${base}/api/items')).json();
    expect(body.items[0].name).toBe('lamp');
  });
});`,
    });
    expect(session.status).toBe('PASSED');
    const steps = result.multiStepCheckResult.steps;
    expect(steps.map((s: any) => s.title)).toEqual(['list items', 'first item is a lamp']);
    for (const s of steps) {
      expect(s.error).toBeNull();
      expect(s.duration).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('Playwright checks', { timeout: 180_000 }, () => {
  it('runs the suite with its config, projects and tags: every test’s outcome in the result', async () => {
    const spec = `import { test, expect } from '@playwright/test';
test('home has a heading @smoke', async ({ page }) => {
  await page.goto('${base}/');
  await expect(page.locator('h1')).toBeVisible();
});
test('home mentions a sale @smoke', async ({ page }) => {
  await page.goto('${base}/');
  await expect(page.locator('text=Sale')).toBeVisible({ timeout: 1000 });
});
test('checkout @slow', async () => { throw new Error('never selected'); });`;
    const { session, result } = await runOnce('playwright', {
      dependencies: [
        {
          path: 'playwright.config.ts',
          content:
            "import { defineConfig } from '@playwright/test';\nexport default defineConfig({ testDir: 'tests', projects: [{ name: 'chromium' }, { name: 'other', testMatch: /nothing/ }] });",
        },
        { path: 'tests/shop.spec.ts', content: spec },
      ],
      playwrightConfigPath: 'playwright.config.ts',
      pwProjects: ['chromium'],
      pwTags: ['@smoke'],
    });
    expect(session.status).toBe('FAILED');
    const tests = result.playwrightCheckResult.tests;
    expect(tests.map((t: any) => [t.title, t.projectName, t.status]).sort()).toEqual([
      ['home has a heading @smoke', 'chromium', 'passed'],
      ['home mentions a sale @smoke', 'chromium', 'failed'],
    ]);
    expect(result.playwrightCheckResult.errors[0]).toMatchObject({ test: 'home mentions a sale @smoke' });
  });

  it('refuses a config path that is not among its files', async () => {
    const res = await svc.api('POST', '/v1/checks/playwright', {
      name: 'x',
      dependencies: [{ path: 'a.spec.ts', content: '' }],
      playwrightConfigPath: 'playwright.config.ts',
    });
    expect(res.status).toBe(400);
    expect(res.body.attributes).toMatchObject({ field: 'playwrightConfigPath' });
    const outside = await svc.api('POST', '/v1/checks/playwright', { name: 'x', dependencies: [{ path: '../etc/passwd', content: '' }] });
    expect(outside.status).toBe(400);
  });
});
