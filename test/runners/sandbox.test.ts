// A hostile browser check, run in the sandbox as the agent runs it: it looks for the agent's
// secrets in every process's environment, for the agent's data directory, for the agent's user,
// and, over the DevTools protocol, for a page another job has open at the same time.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { runBrowser } from '../../src/checks/browser.js';
import { BrowserServers } from '../../src/checks/pw/browser-server.js';
import { Sandbox } from '../../src/checks/sandbox.js';
import { DEFAULT_RUNTIMES_DIR, runtimeModules } from '../../src/runtimes/catalog.js';
import type { BrowserEnv } from '../../src/checks/types.js';
import { jobOf, runJob, log } from '../helpers/runner.js';

const SECRET = `agent-secret-${process.pid}`;
let sandbox: Sandbox;
let dataDir: string;
let web: http.Server;
let base: string;
const seen: string[] = [];
/** Answers the holder's /release request when the test says so. */
let release: () => void = () => {};
let released = Promise.resolve();
const servers: BrowserServers[] = [];

beforeAll(async () => {
  // What an agent holds that no check may see: a key in its environment, a data directory.
  process.env.OUTPOST_TEST_AGENT_KEY = SECRET;
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-data-'));
  fs.writeFileSync(path.join(dataDir, 'outpost.db'), 'the database');
  const found = await Sandbox.detect('required', [DEFAULT_RUNTIMES_DIR, runtimeModules('2026.04', DEFAULT_RUNTIMES_DIR)]);
  expect(found.reason).toBeNull();
  sandbox = found.sandbox!;
  web = http.createServer((req, res) => {
    seen.push(req.url!);
    if (req.url === '/release') void released.then(() => res.end('go'));
    else res.end('<h1>account A</h1>');
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
});
afterAll(async () => {
  delete process.env.OUTPOST_TEST_AGENT_KEY;
  release();
  web?.close();
  await Promise.all(servers.map((s) => s.close()));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function env(withSandbox: boolean): BrowserEnv {
  const s = new BrowserServers('/usr/bin/chromium', log);
  servers.push(s);
  return {
    servers: s,
    runtimesDir: DEFAULT_RUNTIMES_DIR,
    chromiumPath: '/usr/bin/chromium',
    carried: new Set(['2026.04']),
    sandbox: withSandbox ? sandbox : null,
    sandboxMissing: withSandbox ? null : 'not asked for',
    sandboxRequired: false,
  };
}

const job = (script: string) =>
  jobOf(
    'BROWSER',
    {},
    { runtimeId: '2026.04', timeoutMs: 60_000, check: { code: { script, artifacts: { screenshot: 'off', trace: 'off' } } } },
  );

/** Holds a page open until released: another account's job, running at the same time. */
const holder = () => `const { test } = require('@playwright/test');
test('holds a page', async ({ page }) => {
  await page.goto('${base}/secret-page-of-account-a');
  await page.request.get('${base}/release', { timeout: 50000 });
});`;

/** Reports what it could reach, as one JSON line in its log. */
const hostile = () => `const { test } = require('@playwright/test');
const fs = require('fs');
const { execSync } = require('child_process');
test('looks around', async ({ browser }) => {
  const pids = fs.readdirSync('/proc').filter((d) => /^\\d+$/.test(d));
  const environ = pids.map((p) => { try { return fs.readFileSync('/proc/' + p + '/environ', 'utf8'); } catch { return ''; } }).join('\\n');
  let dataDir;
  try { dataDir = fs.readdirSync(${JSON.stringify(dataDir)}); } catch (e) { dataDir = e.code; }
  const cdp = await browser.newBrowserCDPSession();
  const { targetInfos } = await cdp.send('Target.getTargets');
  console.log('FOUND ' + JSON.stringify({
    secretInAnyEnviron: environ.includes(${JSON.stringify(SECRET)}),
    processesSeen: pids.length,
    agentProcessVisible: fs.existsSync('/proc/${process.pid}'),
    dataDir,
    uid: execSync('id -u').toString().trim(),
    otherJobsPages: targetInfos.filter((t) => t.url.includes('secret-page-of-account-a')).length,
  }));
});`;

async function lookAround(e: BrowserEnv) {
  seen.length = 0;
  released = new Promise<void>((r) => (release = r));
  const held = runJob(runBrowser, job(holder()), { browser: e });
  // The other job's page is open once the server has served it.
  while (!seen.includes('/release')) await new Promise((r) => web.once('request', r));
  const out = await runJob(runBrowser, job(hostile()), { browser: e });
  release();
  await held;
  expect(out.error).toBeNull();
  const line = ((out.detail.browserCheckResult as any).jobLog as string[]).find((l) => l.startsWith('FOUND '));
  return JSON.parse(line!.slice('FOUND '.length));
}

describe('sandboxed browser checks', { timeout: 180_000 }, () => {
  it('see no other process, no agent secret, no data directory, and no other job’s page', async () => {
    const found = await lookAround(env(true));
    expect(found).toMatchObject({ secretInAnyEnviron: false, agentProcessVisible: false, dataDir: 'ENOENT', otherJobsPages: 0 });
    // Its own runner, worker and browser, and nothing else.
    expect(found.processesSeen).toBeLessThan(20);
    if (process.getuid!() === 0) expect(found.uid).toBe('65534');
  });

  it('(without the sandbox, the same script reaches all of it: what the sandbox is for)', async () => {
    const found = await lookAround(env(false));
    expect(found).toMatchObject({ secretInAnyEnviron: true, agentProcessVisible: true, otherJobsPages: 1 });
    expect(found.dataDir).toEqual(['outpost.db']);
  });
});
