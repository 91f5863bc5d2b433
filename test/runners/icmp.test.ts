// The ICMP runner: real echo requests to loopback, and the reading of ping's report.

import { describe, it, expect } from 'vitest';
import { runIcmp, parsePing } from '../../src/checks/icmp.js';
import { createLogger } from '../../src/log.js';
import type { Job } from '../../src/domain/run.js';

const log = createLogger('test', 'ERROR');
function job(request: Record<string, unknown>): Job {
  return { id: 'j', checkId: 'c', checkType: 'ICMP', location: 'here', dueAt: 0, timeoutMs: 5000, check: { name: 'n', request, degradedResponseTime: 10000, maxResponseTime: 20000, shouldFail: false } };
}
const run = (j: Job) => runIcmp(j, { signal: new AbortController().signal, deadline: Date.now() + j.timeoutMs, log });

describe('ICMP runner', () => {
  it('pings 127.0.0.1 and reports loss and latency', async () => {
    const out = await run(job({ hostname: '127.0.0.1', pingCount: 3, assertions: [
      { source: 'LATENCY', property: 'avg', comparison: 'LESS_THAN', target: '50' },
      { source: 'JSON_RESPONSE', property: '$.packetLoss', comparison: 'EQUALS', target: '0' },
    ] }));
    expect(out.error).toBeNull();
    const r = out.detail.icmpCheckResult as any;
    expect(r).toMatchObject({ packetsSent: 3, packetsReceived: 3, packetLoss: 0, address: '127.0.0.1' });
    expect(r.latency.min).toBeLessThanOrEqual(r.latency.avg);
    expect(r.latency.avg).toBeLessThanOrEqual(r.latency.max);
    expect(out.responseTime).toBe(r.latency.avg);
  });

  it('pings ::1 over IPv6', async () => {
    const out = await run(job({ hostname: '::1', ipFamily: 'IPv6', pingCount: 2 }));
    expect(out.error).toBeNull();
    expect((out.detail.icmpCheckResult as any).packetsReceived).toBe(2);
  });

  it('fails a latency assertion with the value it saw', async () => {
    const out = await run(job({ hostname: '127.0.0.1', pingCount: 1, assertions: [{ source: 'LATENCY', property: 'max', comparison: 'GREATER_THAN', target: '10000' }] }));
    expect(out.error).toMatch(/^assertion failed: LATENCY GREATER_THAN "10000" \(got [\d.]+\)$/);
  });
});

describe('reading ping output', () => {
  it('parses a full report', () => {
    const s = parsePing('PING host.test (10.1.2.3) 56(84) bytes of data.\n\n--- host.test ping statistics ---\n5 packets transmitted, 4 received, 20% packet loss, time 805ms\nrtt min/avg/max/mdev = 0.031/0.046/0.070/0.014 ms\n');
    expect(s).toEqual({ address: '10.1.2.3', sent: 5, received: 4, latency: { min: 0.031, avg: 0.046, max: 0.07, stdDev: 0.014 } });
  });
  it('parses total loss, which has no round-trip line', () => {
    expect(parsePing('PING 192.0.2.1 (192.0.2.1) 56(84) bytes of data.\n\n--- 192.0.2.1 ping statistics ---\n3 packets transmitted, 0 received, 100% packet loss, time 2050ms\n')).toEqual({ address: '192.0.2.1', sent: 3, received: 0, latency: null });
  });
});
