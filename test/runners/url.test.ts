// The URL runner against real HTTP and HTTPS servers on loopback.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { runUrl } from '../../src/checks/url.js';
import { httpServer, httpsServer, type HttpTarget } from '../helpers/http-servers.js';
import { closedPort } from '../helpers/servers.js';
import { jobOf, runJob, type Job } from '../helpers/runner.js';

let plain: HttpTarget;
let secure: HttpTarget;
let six: HttpTarget;
beforeAll(async () => {
  plain = await httpServer();
  secure = await httpsServer();
  six = await httpServer('::1');
});
afterAll(async () => {
  await Promise.all([plain.close(), secure.close(), six.close()]);
});

const job = (request: Record<string, unknown>, timeoutMs = 3000) =>
  jobOf('URL', request, { id: 'check-1:1000:here', checkId: 'check-1', dueAt: 1000, timeoutMs });
const run = (j: Job) => runJob(runUrl, j);
const result = (out: Awaited<ReturnType<typeof run>>) => out.detail.apiCheckResult as any;

describe('URL runner', () => {
  it('passes a 200 and marks the request as synthetic', async () => {
    const out = await run(job({ url: `${plain.url}/ok`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] }));
    expect(out.error).toBeNull();
    expect(result(out).response.status).toBe(200);
    const seen = plain.seen.at(-1)!;
    expect(seen.headers['x-outpost-check-id']).toBe('check-1');
    expect(seen.headers['x-outpost-run-id']).toBe('check-1:1000:here');
    expect(seen.headers['user-agent']).toMatch(/^Outpost\//);
  });

  it('fails on a status assertion with the status it got', async () => {
    const out = await run(
      job({ url: `${plain.url}/fail`, assertions: [{ source: 'STATUS_CODE', comparison: 'LESS_THAN', target: '400' }] }),
    );
    expect(out.error).toBe('assertion failed: STATUS_CODE LESS_THAN "400" (got 503)');
  });

  it('fails a 4xx or 5xx when there are no assertions', async () => {
    expect((await run(job({ url: `${plain.url}/missing` }))).error).toBe('status code 404');
  });

  it('follows redirects unless told not to', async () => {
    const followed = await run(job({ url: `${plain.url}/redirect` }));
    expect(result(followed).response).toMatchObject({ status: 200, redirects: 1 });
    const kept = await run(
      job({
        url: `${plain.url}/redirect`,
        followRedirects: false,
        assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '302' }],
      }),
    );
    expect(kept.error).toBeNull();
  });

  it('measures first byte and download against injected delays', async () => {
    const out = await run(job({ url: `${plain.url}/ok?wait=120&trickle=80` }));
    const p = result(out).response.timingPhases;
    expect(p.firstByte).toBeGreaterThanOrEqual(119);
    expect(p.firstByte).toBeLessThan(200);
    expect(p.download).toBeGreaterThanOrEqual(79);
    expect(p.download).toBeLessThan(160);
    expect(p.total).toBeGreaterThanOrEqual(p.firstByte + p.download);
    expect(out.responseTime).toBe(Math.round(p.total));
  });

  it('refuses a self-signed certificate but keeps its facts; skipSSL accepts it', async () => {
    const strict = await run(job({ url: `${secure.url}/ok` }));
    expect(strict.error).toMatch(/TLS certificate rejected: .*self[- ]signed/i);
    expect(result(strict).tls).toMatchObject({ authorized: false, subject: { CN: 'localhost' } });
    expect(result(strict).tls.subjectAltNames).toContain('IP Address:127.0.0.1');
    const lax = await run(job({ url: `${secure.url}/ok`, skipSSL: true }));
    expect(lax.error).toBeNull();
    const t = result(lax).tls;
    expect(t.protocol).toMatch(/^TLSv1\.[23]$/);
    expect(t.daysRemaining).toBeGreaterThanOrEqual(29);
    expect(result(lax).response.timingPhases.tls).toBeGreaterThan(0);
  });

  it('reaches IPv6 targets', async () => {
    const out = await run(job({ url: `${six.url}/ok`, ipFamily: 'IPv6' }));
    expect(out.error).toBeNull();
    expect(result(out).response.remoteAddress).toBe('::1');
  });

  it('names refused connections and timeouts', async () => {
    const refused = await run(job({ url: `http://127.0.0.1:${await closedPort()}/` }));
    expect(refused.error).toMatch(/^ECONNREFUSED/);
    const slow = await run(job({ url: `${plain.url}/ok?wait=5000` }, 300));
    expect(slow.error).toMatch(/^Timed out after \d+ ms while waiting for firstByte from 127\.0\.0\.1:\d+$/);
  });
});

// The response's bytes are timed by the kernel's stamps as they arrive (the addon's watcher
// thread reads them), not when the event loop gets to them: a busy agent still reports how long
// the server took.
describe('URL runner, timing while the event loop is busy', () => {
  it('reports the first byte and the download as the server applied them, though JavaScript saw both late', async () => {
    const { nativeAddon } = await import('../../src/checks/native.js');
    expect(nativeAddon(), 'the native addon is built by npm install (python3, make, g++)').not.toBeNull();
    const { startDelayServer } = await import('../../src/bench/delay-server.js');
    // The benchmark's delay server, in its own process: 20 ms to the first byte, 20 ms more to the last.
    const server = await startDelayServer();
    const stackTraceLimit = Error.stackTraceLimit;
    try {
      const running = run(job({ url: `http://127.0.0.1:${server.port}/busy` }));
      // Once the request is out, the loop is kept busy for 300 ms: both arrivals fall inside.
      await new Promise((r) => setTimeout(r, 5));
      const busyUntil = Date.now() + 300;
      while (Date.now() < busyUntil) {
        /* busy */
      }
      const out = await running;
      // The runner turns stack traces off for a moment while undici closes the connection (the
      // server said `Connection: close`); they must be back on for everything after.
      expect(Error.stackTraceLimit).toBe(stackTraceLimit);
      expect(new Error('after a run').stack).toContain('url.test.ts');
      const applied = await server.applied();
      const truth = applied['/busy'];
      expect(truth.firstByte + truth.download, 'the server answered while the loop was busy').toBeLessThan(250);
      const phases = result(out).response.timingPhases;
      // Read off the event loop, the first byte would be ~300 ms late and the download ~0 ms.
      // The stamps do not wait for a core; the request's way out (before the busy spell) may,
      // while the rest of the suite runs, hence the margin.
      expect(Math.abs(phases.firstByte - truth.firstByte)).toBeLessThan(15);
      expect(Math.abs(phases.download - truth.download)).toBeLessThan(10);
    } finally {
      server.stop();
    }
  });
});
