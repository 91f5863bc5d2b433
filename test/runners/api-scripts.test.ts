// Setup and teardown scripts of API checks: they shape the request, and they run isolated.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { runApi } from '../../src/checks/api.js';
import { httpServer, type HttpTarget } from '../helpers/http-servers.js';
import { jobOf, runJob, type Job } from '../helpers/runner.js';

let web: HttpTarget;
beforeAll(async () => {
  web = await httpServer();
  // Stand-ins for what an agent process holds: a script must not reach them.
  process.env.API_KEY = 'pl_agent_key_that_must_not_leak';
});
afterAll(async () => {
  delete process.env.API_KEY;
  await web.close();
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

  it('a script sees no process, no environment of the agent and cannot escape its context', async () => {
    const out = await run(
      job(`
      request.headers['x-process'] = typeof process;
      request.headers['x-require'] = typeof require;
      let escaped = 'blocked';
      try { escaped = String(this.constructor.constructor('return process')().env.API_KEY); } catch (e) {}
      try { escaped = String(console.log.constructor('return process')().env.API_KEY); } catch (e) {}
      request.headers['x-escape'] = escaped;`),
    );
    expect(out.error).toBeNull();
    const h = web.seen.at(-1)!.headers;
    expect(h['x-process']).toBe('undefined');
    expect(h['x-require']).toBe('undefined');
    expect(h['x-escape']).toBe('blocked');
  });

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
