// The API runner against a real HTTP server on loopback.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { runApi } from '../../src/checks/api.js';
import type { Variable } from '../../src/domain/run.js';
import { httpServer, type HttpTarget } from '../helpers/http-servers.js';
import { jobOf, runJob, type Job } from '../helpers/runner.js';

let web: HttpTarget;
beforeAll(async () => {
  web = await httpServer();
});
afterAll(async () => {
  await web.close();
});

const job = (request: Record<string, unknown>, variables?: Variable[]) => jobOf('API', { method: 'GET', ...request }, { variables });
const run = (j: Job) => runJob(runApi, j);
const res = (o: Awaited<ReturnType<typeof run>>) => (o.detail.apiCheckResult as any).response;
const reqOf = (o: Awaited<ReturnType<typeof run>>) => (o.detail.apiCheckResult as any).request;

describe('API runner', () => {
  it('sends method, headers, query, JSON body and basic auth', async () => {
    const out = await run(
      job({
        method: 'POST',
        url: `${web.url}/echo`,
        bodyType: 'JSON',
        body: '{"a":1}',
        headers: [{ key: 'X-Trace', value: 'abc' }],
        queryParameters: [{ key: 'page', value: '2' }],
        basicAuth: { username: 'u', password: 'p' },
        assertions: [
          { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' },
          { source: 'JSON_BODY', property: '$.method', comparison: 'EQUALS', target: 'POST' },
          { source: 'JSON_BODY', property: '$.query.page', comparison: 'EQUALS', target: '2' },
          { source: 'JSON_BODY', property: '$.headers', comparison: 'HAS_KEY', target: 'x-trace' },
          { source: 'JSON_BODY', property: '$.headers.content-type', comparison: 'EQUALS', target: 'application/json' },
          { source: 'JSON_BODY', property: '$.body', comparison: 'EQUALS', target: '{"a":1}' },
          { source: 'HEADERS', property: 'X-Request-Method', comparison: 'EQUALS', target: 'POST' },
          { source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'dTpw' },
          { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '2000' },
        ],
      }),
    );
    expect(out.error).toBeNull();
    expect(out.assertions).toHaveLength(9);
    expect(reqOf(out).headers.authorization).toBe('*****');
  });

  it('fills {{VARIABLES}} and masks secret values in what it reports', async () => {
    const vars = [
      { key: 'HOST', value: web.url },
      { key: 'TOKEN', value: 'account-token' },
      { key: 'TOKEN', value: 'tok-secret-1', secret: true },
    ];
    const out = await run(
      job(
        {
          url: '{{HOST}}/echo?t={{TOKEN}}',
          headers: [{ key: 'x-token', value: 'Bearer {{TOKEN}}' }],
          assertions: [{ source: 'JSON_BODY', property: '$.headers.x-token', comparison: 'EQUALS', target: 'Bearer tok-secret-1' }],
        },
        vars,
      ),
    );
    expect(out.error).toBeNull();
    const shown = JSON.stringify(out.detail);
    expect(shown).not.toContain('tok-secret-1');
    expect(reqOf(out).url).toBe(`${web.url}/echo?t=*****`);
    expect(web.seen.at(-1)!.headers['x-token']).toBe('Bearer tok-secret-1');
  });

  it('says which assertion failed and why', async () => {
    const wrong = await run(
      job({ url: `${web.url}/json`, assertions: [{ source: 'JSON_BODY', property: '$.status', comparison: 'EQUALS', target: 'down' }] }),
    );
    expect(wrong.error).toBe('assertion failed: JSON_BODY EQUALS "down" (got "up")');
    const notJson = await run(
      job({ url: `${web.url}/ok`, assertions: [{ source: 'JSON_BODY', property: '$.a', comparison: 'NOT_NULL' }] }),
    );
    expect(notJson.error).toMatch(/^assertion failed: JSON_BODY NOT_NULL .*: the body is not JSON/);
    expect(res(notJson).body).toBe('ok');
  });

  it('stops a backtracking regex at the time limit without stalling the agent', async () => {
    // A loop that must keep turning while the regex runs: the agent's own work goes on.
    let longestGap = 0;
    let last = performance.now();
    const beat = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 10);
    const evil = await run(
      job({
        method: 'POST',
        url: `${web.url}/echo`,
        bodyType: 'RAW',
        body: `${'a'.repeat(31)}!`,
        assertions: [
          { source: 'JSON_BODY', property: '$.body', comparison: 'NOT_NULL', regex: '^(a+)+$' },
          { source: 'JSON_BODY', property: '$.method', comparison: 'EQUALS', target: 'POST' },
        ],
      }),
    );
    clearInterval(beat);
    expect(evil.error).toMatch(/regex "\^\(a\+\)\+\$" took longer than 1000 ms and was stopped/);
    expect(evil.assertions[1]).toMatchObject({ passed: false, error: expect.stringMatching(/not evaluated/) });
    expect(longestGap).toBeLessThan(500);
    // The next run's regexes and JSONPath work as before, in a fresh worker.
    const next = await run(
      job({
        url: `${web.url}/json`,
        assertions: [
          { source: 'TEXT_BODY', comparison: 'EQUALS', target: 'up', regex: '"status":"(\\w+)"' },
          { source: 'JSON_BODY', property: '$.items[*]', comparison: 'HAS_VALUE', target: '2' },
        ],
      }),
    );
    expect(next.error).toBeNull();
    expect(next.assertions.map((a) => a.actual)).toEqual(['up', [1, 2, 3]]);
  });

  it('sends form bodies with their content type', async () => {
    const out = await run(
      job({
        method: 'PUT',
        url: `${web.url}/echo`,
        bodyType: 'FORM',
        body: 'a=1&b=2',
        assertions: [
          { source: 'JSON_BODY', property: '$.headers.content-type', comparison: 'EQUALS', target: 'application/x-www-form-urlencoded' },
        ],
      }),
    );
    expect(out.error).toBeNull();
  });
});

describe('API runner through a proxy', () => {
  it('tunnels through the proxy with its credentials, and reports a refused tunnel', async () => {
    const { recordingProxy } = await import('../helpers/proxy.js');
    const proxy = await recordingProxy({ user: 'pxuser', pass: 'px-pass' });
    try {
      const through = await run({ ...job({ url: `${web.url}/json` }), proxyUrl: proxy.url });
      expect(through.error).toBeNull();
      expect(proxy.seen.at(-1)).toEqual({
        target: new URL(web.url).host,
        auth: `Basic ${Buffer.from('pxuser:px-pass').toString('base64')}`,
      });
      const wrong = proxy.url.replace('px-pass', 'nope');
      const refused = await run({ ...job({ url: `${web.url}/json` }), proxyUrl: wrong });
      expect(refused.error).toMatch(/^the proxy refused the tunnel to 127\.0\.0\.1:\d+ \(status 407\)$/);
      expect(JSON.stringify(refused)).not.toContain('nope');
    } finally {
      await proxy.close();
    }
  });
});
