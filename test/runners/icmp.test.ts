// The ICMP runner: real echo requests to loopback over the agent's own socket, the ping
// fallback under each privilege an agent may have, and the reading of ping's report.

import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runIcmp, parsePing, summarize } from '../../src/checks/icmp.js';
import { pingerFor } from '../../src/checks/icmp-socket.js';
import { jobOf, runJob, type Job } from '../helpers/runner.js';

const job = (request: Record<string, unknown>) => jobOf('ICMP', request, { timeoutMs: 5000 });
const run = (j: Job) => runJob(runIcmp, j);

describe('ICMP runner', () => {
  it('pings 127.0.0.1 and reports loss and latency', async () => {
    const out = await run(
      job({
        hostname: '127.0.0.1',
        pingCount: 3,
        assertions: [
          { source: 'LATENCY', property: 'avg', comparison: 'LESS_THAN', target: '50' },
          { source: 'JSON_RESPONSE', property: '$.packetLoss', comparison: 'EQUALS', target: '0' },
        ],
      }),
    );
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
    const out = await run(
      job({
        hostname: '127.0.0.1',
        pingCount: 1,
        assertions: [{ source: 'LATENCY', property: 'max', comparison: 'GREATER_THAN', target: '10000' }],
      }),
    );
    expect(out.error).toMatch(/^assertion failed: LATENCY GREATER_THAN "10000" \(got [\d.]+\)$/);
  });
});

// Runs one ICMP check in a fresh network namespace (so ping_group_range is ours to set) as a
// root process stripped of its capabilities, the way an agent runs in a locked-down container.
const sh = promisify(execFile);
const dist = (m: string) => fileURLToPath(new URL(`../../dist/checks/${m}`, import.meta.url));
async function runConfined(
  pingGroupRange: string,
  setprivFlags: string[],
): Promise<{ engine: string; error: string | null; received: number }> {
  const script = `
    const { runIcmp } = await import(${JSON.stringify(dist('icmp.js'))});
    const { pingerFor } = await import(${JSON.stringify(dist('icmp-socket.js'))});
    const p = pingerFor(4);
    const job = { check: { request: { hostname: '127.0.0.1', pingCount: 2 } } };
    const out = await runIcmp(job, { signal: new AbortController().signal, deadline: Date.now() + 5000 });
    console.log(JSON.stringify({ engine: p instanceof Error ? 'ping program' : p.kind, error: out.error, received: out.detail.icmpCheckResult.packetsReceived }));`;
  const inner = `ip link set lo up && sysctl -qw net.ipv4.ping_group_range="${pingGroupRange}" && exec setpriv --securebits +noroot --inh-caps -all ${setprivFlags.join(' ')} "$0" --input-type=module -e "$1"`;
  const { stdout } = await sh('unshare', ['-n', 'sh', '-c', inner, process.execPath, script]);
  return JSON.parse(stdout);
}

describe('ICMP privileges', () => {
  it('uses the agent’s own socket when it may open one (tests run as root: raw)', () => {
    const p = pingerFor(4);
    expect(p).not.toBeInstanceOf(Error);
    expect((p as Exclude<typeof p, Error>).kind).toBe('raw');
  });

  it('uses an unprivileged ICMP socket where ping_group_range allows it', async () => {
    expect(await runConfined('0 0', ['--bounding-set', '-net_raw'])).toEqual({ engine: 'dgram', error: null, received: 2 });
  });

  it('falls back to the ping program (its file capability) when the agent may open no ICMP socket', async () => {
    expect(await runConfined('1 0', [])).toEqual({ engine: 'ping program', error: null, received: 2 });
  });

  it('says what to do when neither is possible', async () => {
    const r = await runConfined('1 0', ['--bounding-set', '-net_raw']);
    expect(r.received).toBe(0);
    expect(r.error).toMatch(
      /^ICMP is not permitted for this agent: run it as root, keep the ping binary’s cap_net_raw capability \(Docker: --cap-add NET_RAW\)/,
    );
  });
});

describe('round-trip statistics', () => {
  it('gives min, avg, max and ping’s mdev', () => {
    expect(summarize([1, 2, 3, 6])).toEqual({ min: 1, avg: 3, max: 6, stdDev: 1.871 });
    expect(summarize([])).toBeNull();
  });
});

describe('reading ping output', () => {
  it('parses a full report', () => {
    const s = parsePing(
      'PING host.test (10.1.2.3) 56(84) bytes of data.\n\n--- host.test ping statistics ---\n5 packets transmitted, 4 received, 20% packet loss, time 805ms\nrtt min/avg/max/mdev = 0.031/0.046/0.070/0.014 ms\n',
    );
    expect(s).toEqual({ address: '10.1.2.3', sent: 5, received: 4, latency: { min: 0.031, avg: 0.046, max: 0.07, stdDev: 0.014 } });
  });
  it('parses total loss, which has no round-trip line', () => {
    expect(
      parsePing(
        'PING 192.0.2.1 (192.0.2.1) 56(84) bytes of data.\n\n--- 192.0.2.1 ping statistics ---\n3 packets transmitted, 0 received, 100% packet loss, time 2050ms\n',
      ),
    ).toEqual({ address: '192.0.2.1', sent: 3, received: 0, latency: null });
  });
});
