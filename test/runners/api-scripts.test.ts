// Setup and teardown scripts of API checks: they shape the request, and they run isolated.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { runApi } from '../../src/checks/api.js';
import { httpServer, type HttpTarget } from '../helpers/http-servers.js';
import { jobOf, runJob, log, type Job } from '../helpers/runner.js';
import { Sandbox } from '../../src/checks/sandbox.js';
import { BrowserServers } from '../../src/checks/pw/browser-server.js';
import { DEFAULT_RUNTIMES_DIR, runtimeModules } from '../../src/runtimes/catalog.js';
import type { BrowserEnv } from '../../src/checks/types.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What an agent with the sandbox gives its runs. */
async function sandboxEnv(): Promise<BrowserEnv> {
  const { sandbox, reason } = await Sandbox.detect('required', [DEFAULT_RUNTIMES_DIR, runtimeModules('2026.04', DEFAULT_RUNTIMES_DIR)]);
  expect(reason).toBeNull();
  return {
    servers: new BrowserServers('/usr/bin/chromium', log),
    runtimesDir: DEFAULT_RUNTIMES_DIR,
    chromiumPath: '/usr/bin/chromium',
    carried: new Set(['2026.04']),
    sandbox,
    sandboxMissing: null,
    sandboxRequired: true,
  };
}

let web: HttpTarget;
let dataDir: string;
beforeAll(async () => {
  web = await httpServer();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-data-'));
  // Stand-ins for what an agent process holds: a script must not reach them.
  process.env.API_KEY = 'pl_agent_key_that_must_not_leak';
});
afterAll(async () => {
  delete process.env.API_KEY;
  await web.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function job(setupScript: string | null, tearDownScript: string | null = null, timeoutMs = 5000) {
  return jobOf(
    'API',
    { method: 'GET', url: `${web.url}/echo`, headers: [{ key: 'x-a', value: '1' }] },
    {
      timeoutMs,
      setupScript,
      tearDownScript,
      variables: [{ key: 'SIGNING_KEY', value: 'k3y', secret: true }],
    },
  );
}
const run = (j: Job) => runJob(runApi, j);

describe('API check scripts', () => {
  it('a setup script changes the request before it is sent and can read the check variables', async () => {
    const out = await run(
      job(
        `request.headers['x-signed'] = environment.SIGNING_KEY + ':' + request.headers['x-a']; request.url = request.url + '?from=setup'; console.log('signed');`,
      ),
    );
    expect(out.error).toBeNull();
    const seen = web.seen.at(-1)!;
    expect(seen.headers['x-signed']).toBe('k3y:1');
    expect(JSON.stringify(out.detail)).not.toContain('k3y');
    expect((out.detail.apiCheckResult as any).jobLog.scripts).toEqual(['signed']);
    expect((out.detail.apiCheckResult as any).request.url).toBe(`${web.url}/echo?from=setup`);
  });

  it('a script is Node under the check’s runtime: require, top-level await, the check’s variables as process.env', async () => {
    const out = await run(
      job(`const axios = require('axios');
const { data } = await axios.get('${web.url}/json');
request.headers['x-status'] = data.status;
request.headers['x-env'] = Object.keys(process.env).join(',');
request.headers['x-signed'] = process.env.SIGNING_KEY === environment.SIGNING_KEY ? 'same' : 'different';`),
    );
    expect(out.error).toBeNull();
    const h = web.seen.at(-1)!.headers;
    expect(h['x-status']).toBe('up');
    expect(h['x-env']).toBe('SIGNING_KEY');
    expect(h['x-signed']).toBe('same');
    // Packages outside the runtime are not there, however the agent itself may use them.
    const pino = await run(job(`require('pino');`));
    expect(pino.error).toMatch(/^setup failed: the script threw: Cannot find module 'pino'/);
  });

  for (const sandboxed of [false, true]) {
    it(`a script reaches neither the agent’s environment nor its files nor other programs (${sandboxed ? 'in the sandbox' : 'without a sandbox'})`, async () => {
      const browser = sandboxed ? await sandboxEnv() : undefined;
      const out = await runJob(
        runApi,
        job(`const fs = require('fs');
const attempt = (f) => { try { f(); return 'allowed'; } catch (e) { return e.code || e.message; } };
request.headers['x-proc'] = attempt(() => fs.readFileSync('/proc/${process.pid}/environ'));
request.headers['x-data'] = attempt(() => fs.readdirSync(${JSON.stringify(dataDir)}));
request.headers['x-exec'] = attempt(() => require('child_process').execSync('id'));
request.headers['x-api-key'] = String(process.env.API_KEY);`),
        { browser },
      );
      expect(out.error).toBeNull();
      const h = web.seen.at(-1)!.headers;
      expect(h['x-proc']).toBe('ERR_ACCESS_DENIED');
      expect(h['x-data']).toBe('ERR_ACCESS_DENIED');
      expect(h['x-exec']).toBe('ERR_ACCESS_DENIED');
      expect(h['x-api-key']).toBe('undefined');
    });
  }

  it('names the cause when a script throws, loops or runs out of memory', async () => {
    expect((await run(job(`throw new Error('no token')`))).error).toBe('setup failed: the script threw: no token');
    expect((await run(job(`for (;;) {}`, null, 1500))).error).toMatch(/^setup failed: the script ran longer than \d+ ms$/);
    expect((await run(job(`const a = []; for (;;) a.push(new Array(1e6).fill(1));`))).error).toBe(
      'setup failed: the script ran out of memory (limit 64 MB)',
    );
    const rejected = await run(job(`console.log('fetching token'); Promise.reject(new Error('no token'))`));
    expect(rejected.error).toBe('setup failed: the script rejected a promise: no token');
    expect((rejected.detail.apiCheckResult as any).jobLog.scripts).toEqual(['fetching token']);
  });

  it('a teardown script reads the response and fails the run by throwing', async () => {
    const ok = await run(job(null, `if (response.status !== 200) throw new Error('bad status')`));
    expect(ok.error).toBeNull();
    const bad = await run(job(null, `if (JSON.parse(response.body).method !== 'POST') throw new Error('expected a POST')`));
    expect(bad.error).toBe('teardown failed: the script threw: expected a POST');
  });
});
