// The TCP runner on its own, against real sockets on loopback.

import { describe, it, expect, afterEach } from 'vitest';
import { runTcp } from '../../src/checks/tcp.js';
import { tcpServer, closedPort, type TcpTarget } from '../helpers/servers.js';
import { jobOf, runJob, type Job } from '../helpers/runner.js';

const open: TcpTarget[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});
async function server(opts: Parameters<typeof tcpServer>[0]) {
  const t = await tcpServer(opts);
  open.push(t);
  return t;
}

const job = (request: Record<string, unknown>, timeoutMs = 2000) => jobOf('TCP', request, { timeoutMs });
const run = (j: Job) => runJob(runTcp, j);

describe('TCP runner', () => {
  it('connects, sends data, reads the answer and measures each phase', async () => {
    const t = await server({ delayMs: 50, reply: (d) => d.toUpperCase() });
    const out = await run(
      job({
        hostname: '127.0.0.1',
        port: t.port,
        data: 'hello',
        assertions: [{ source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'HELLO' }],
      }),
    );
    expect(out.error).toBeNull();
    const r = out.detail.tcpCheckResult as any;
    expect(r.response.data).toBe('HELLO');
    expect(r.timings.data).toBeGreaterThanOrEqual(45);
    expect(r.timings.total).toBeGreaterThanOrEqual(r.timings.connect + r.timings.data - 0.01);
    expect(out.responseTime).toBeGreaterThanOrEqual(50);
  });

  it('reaches IPv6 targets with ipFamily IPv6', async () => {
    const t = await server({ host: '::1', reply: () => 'six' });
    const out = await run(
      job({
        hostname: '::1',
        port: t.port,
        ipFamily: 'IPv6',
        data: 'x',
        assertions: [{ source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'six' }],
      }),
    );
    expect(out.error).toBeNull();
    expect((out.detail.tcpCheckResult as any).ipFamily).toBe('IPv6');
  });

  it('reads a banner when no data is sent but the data is asserted', async () => {
    const t = await server({ banner: '220 smtp.local ESMTP\r\n' });
    const out = await run(
      job({ hostname: '127.0.0.1', port: t.port, assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: '220' }] }),
    );
    expect(out.error).toBeNull();
    expect((out.detail.tcpCheckResult as any).response.data).toContain('ESMTP');
  });

  it('fails with a named assertion when the answer is wrong', async () => {
    const t = await server({ reply: () => 'NOPE', closeAfterReply: true });
    const out = await run(
      job({
        hostname: '127.0.0.1',
        port: t.port,
        data: 'x',
        assertions: [{ source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'YES' }],
      }),
    );
    expect(out.error).toBe('assertion failed: RESPONSE_DATA EQUALS "YES" (got "NOPE")');
    expect(out.assertions[0]).toMatchObject({ passed: false, actual: 'NOPE' });
  });

  it('times out at the deadline with a message saying where it stopped', async () => {
    const t = await server({ delayMs: 10_000 });
    const started = Date.now();
    const out = await run(
      job({ hostname: '127.0.0.1', port: t.port, data: 'x', assertions: [{ source: 'RESPONSE_DATA', comparison: 'NOT_EMPTY' }] }, 300),
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(out.error).toMatch(/^Timed out after \d+ ms while reading from 127\.0\.0\.1:\d+$/);
  });

  it('reports a refused connection, never throws', async () => {
    const out = await run(job({ hostname: '127.0.0.1', port: await closedPort() }));
    expect(out.error).toMatch(/^ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
  });
});
