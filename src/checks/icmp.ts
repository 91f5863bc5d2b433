// ICMP check: echo requests to a host, judged on packet loss and latency.
//
// Node has no ICMP sockets, so the exchange is made by the system's ping (iputils), which uses
// an unprivileged ICMP socket where net.ipv4.ping_group_range allows one, and a raw socket
// through its cap_net_raw file capability (or as root) otherwise: real echo requests either way.

import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { evaluateAssertions, describeFailure, type Assertion, type Actual } from '../domain/assertions.js';
import { jsonPath } from '../domain/json-path.js';
import type { CheckRunner } from './types.js';

interface IcmpRequest {
  hostname: string;
  ipFamily?: 'IPv4' | 'IPv6' | null;
  pingCount?: number | null;
  assertions?: Assertion[];
}

export interface PingSummary {
  address: string | null;
  sent: number;
  received: number;
  latency: { min: number; avg: number; max: number; stdDev: number } | null;
}

/** Reads iputils ping output. Pure. */
export function parsePing(out: string): PingSummary {
  const address = /^PING \S+ \(([^)]+)\)/m.exec(out)?.[1] ?? null;
  const counts = /(\d+) packets transmitted, (\d+) (?:packets )?received/.exec(out);
  const rtt = /= ([\d.]+)\/([\d.]+)\/([\d.]+)\/([\d.]+) ms/.exec(out);
  return {
    address,
    sent: counts ? Number(counts[1]) : 0,
    received: counts ? Number(counts[2]) : 0,
    latency: rtt ? { min: Number(rtt[1]), avg: Number(rtt[2]), max: Number(rtt[3]), stdDev: Number(rtt[4]) } : null,
  };
}

/** Turns ping's complaints into sentences a user can act on. */
function explain(stderr: string, code: number | null, host: string): string {
  if (/Operation not permitted|socket: Permission denied|Lacking privilege/i.test(stderr)) {
    return 'ICMP is not permitted for this agent: run it as root, keep the ping binary’s cap_net_raw capability (Docker: --cap-add NET_RAW), or allow unprivileged ICMP with sysctl net.ipv4.ping_group_range';
  }
  if (/unknown host|Name or service not known|Temporary failure in name resolution|No address associated/i.test(stderr)) return `DNS lookup of ${host} failed`;
  const line = stderr.trim().split('\n').pop();
  return line ? line.replace(/^ping: /, '') : `ping exited with code ${code}`;
}

export const runIcmp: CheckRunner = async (job, ctx) => {
  const req = job.check.request as unknown as IcmpRequest;
  const count = req.pingCount ?? 10;
  const six = req.ipFamily === 'IPv6';
  const seconds = Math.max(1, Math.floor((ctx.deadline - Date.now()) / 1000));
  const t0 = performance.now();
  const run = await new Promise<{ out: string; err: string; code: number | null; spawnError?: string }>((resolve) => {
    const child = spawn('ping', [six ? '-6' : '-4', '-n', '-c', String(count), '-i', '0.2', '-W', '1', '-w', String(seconds), req.hostname], { env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    const stop = () => child.kill('SIGINT'); // ping prints its summary on SIGINT
    ctx.signal.addEventListener('abort', stop, { once: true });
    child.on('error', (e) => resolve({ out, err, code: null, spawnError: (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'ICMP checks need the ping program on the agent (Debian: apt-get install iputils-ping)' : e.message }));
    child.on('close', (code) => {
      ctx.signal.removeEventListener('abort', stop);
      resolve({ out, err, code });
    });
  });
  const elapsed = performance.now() - t0;
  const s = parsePing(run.out);
  const packetLoss = s.sent ? Math.round(((s.sent - s.received) / s.sent) * 10000) / 100 : 100;
  const json = { hostname: req.hostname, ipFamily: six ? 'IPv6' : 'IPv4', address: s.address, packetsSent: s.sent, packetsReceived: s.received, packetLoss, latency: s.latency };
  let error: string | null = null;
  if (run.spawnError) error = run.spawnError;
  else if (s.sent === 0) error = explain(run.err, run.code, req.hostname);
  else if (s.received === 0) error = `no echo reply from ${req.hostname} (${s.sent} requests sent)`;
  const outcomes = error
    ? []
    : evaluateAssertions(req.assertions ?? [], (a): Actual => {
        if (a.source === 'LATENCY') return s.latency ? (s.latency as Record<string, number>)[a.property || 'avg'] ?? null : null;
        if (a.source === 'JSON_RESPONSE') return jsonPath(json, a.property ?? '');
        return null;
      });
  const failed = outcomes.find((o) => !o.passed);
  if (!error && failed) error = describeFailure(failed);
  return {
    // The run's measure is the average round trip, not the time the pings took to send.
    responseTime: s.latency ? Math.round(s.latency.avg * 1000) / 1000 : Math.round(elapsed),
    error,
    assertions: outcomes,
    detail: { icmpCheckResult: { ...json, assertions: outcomes, error } },
  };
};
