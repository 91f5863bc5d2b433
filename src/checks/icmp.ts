// ICMP check: echo requests to a host, judged on packet loss and latency.
//
// Node has no ICMP sockets, so the agent brings its own (src/native, shared by all runs:
// unprivileged where net.ipv4.ping_group_range allows, raw as root or with CAP_NET_RAW). Where
// that addon is missing or may not open a socket, the system's ping (iputils) makes the
// exchange instead, through its own cap_net_raw file capability: real echo requests either way.

import { spawn } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pingerFor, type Pinger } from './icmp-socket.js';
import { describeFailure, type Actual } from '../domain/assertions.js';
import { assess, InDocument } from './assess.js';
import { TargetRefusedError } from './errors.js';
import type { CheckRunner, RunContext } from './types.js';
import type { IcmpRequest } from '../domain/check-types/icmp.js';

export interface PingSummary {
  address: string | null;
  sent: number;
  received: number;
  latency: { min: number; avg: number; max: number; stdDev: number } | null;
  /** Set when no exchange could be made at all. */
  error?: string;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** min/avg/max and ping's mdev (population standard deviation) of round trips. Pure. */
export function summarize(rtts: number[]): PingSummary['latency'] {
  if (!rtts.length) return null;
  const avg = rtts.reduce((a, b) => a + b, 0) / rtts.length;
  const variance = rtts.reduce((a, b) => a + (b - avg) ** 2, 0) / rtts.length;
  return { min: round3(Math.min(...rtts)), avg: round3(avg), max: round3(Math.max(...rtts)), stdDev: round3(Math.sqrt(variance)) };
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

const INTERVAL_MS = 200; // as ping -i 0.2
const REPLY_WAIT_MS = 1000; // as ping -W 1

/** Echo requests every 200 ms over the shared socket until count are sent or time is up. */
/** The address to ping, or the summary of a run that cannot send (no address, or a refused one). */
async function addressOf(req: IcmpRequest, family: 4 | 6, ctx: RunContext): Promise<string | PingSummary> {
  let address: string;
  try {
    address = (await lookup(req.hostname, { family })).address;
  } catch {
    return { address: null, sent: 0, received: 0, latency: null, error: `DNS lookup of ${req.hostname} failed` };
  }
  if (ctx.guard?.refuses(address))
    return { address, sent: 0, received: 0, latency: null, error: new TargetRefusedError(req.hostname, address).message };
  return address;
}

async function exchange(pinger: Pinger, req: IcmpRequest, count: number, family: 4 | 6, ctx: RunContext): Promise<PingSummary> {
  const address = await addressOf(req, family, ctx);
  if (typeof address !== 'string') return address;
  const replies: Promise<number | null>[] = [];
  try {
    for (let i = 0; i < count && !ctx.signal.aborted; i++) {
      if (i > 0) await sleep(INTERVAL_MS, undefined, { signal: ctx.signal }).catch(() => undefined);
      const wait = Math.min(REPLY_WAIT_MS, ctx.deadline - Date.now());
      if (ctx.signal.aborted || wait <= 0) break;
      replies.push(pinger.echo(address, wait));
    }
  } catch (e) {
    if (!replies.length)
      return { address, sent: 0, received: 0, latency: null, error: `sending to ${address} failed: ${(e as Error).message}` };
  }
  const rtts = (await Promise.all(replies)).filter((r): r is number => r !== null);
  return { address, sent: replies.length, received: rtts.length, latency: summarize(rtts) };
}

/** The same exchange made by the system's ping program. */
async function exchangeWithPing(req: IcmpRequest, count: number, six: boolean, ctx: RunContext): Promise<PingSummary> {
  // ping resolves names itself; with the guard on, it is given the address the guard passed.
  let target = req.hostname;
  if (ctx.guard) {
    const address = await addressOf(req, six ? 6 : 4, ctx);
    if (typeof address !== 'string') return address;
    target = address;
  }
  const seconds = Math.max(1, Math.floor((ctx.deadline - Date.now()) / 1000));
  const run = await new Promise<{ out: string; err: string; code: number | null; spawnError?: string }>((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn('ping', [six ? '-6' : '-4', '-n', '-c', String(count), '-i', '0.2', '-W', '1', '-w', String(seconds), target], {
        env: {},
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (e) {
      // EPERM here: ping's file capability exceeds what the agent may hold (docker --cap-drop NET_RAW).
      resolve({
        out: '',
        err: (e as NodeJS.ErrnoException).code === 'EPERM' ? 'Operation not permitted' : '',
        code: null,
        spawnError: (e as NodeJS.ErrnoException).code === 'EPERM' ? undefined : (e as Error).message,
      });
      return;
    }
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr!.setEncoding('utf8').on('data', (d) => (err += d));
    const stop = () => child.kill('SIGINT'); // ping prints its summary on SIGINT
    ctx.signal.addEventListener('abort', stop, { once: true });
    child.on('error', (e) =>
      resolve({
        out,
        err,
        code: null,
        spawnError:
          (e as NodeJS.ErrnoException).code === 'ENOENT'
            ? 'ICMP checks need the agent’s ICMP socket (root or CAP_NET_RAW) or the ping program (Debian: apt-get install iputils-ping)'
            : e.message,
      }),
    );
    child.on('close', (code) => {
      ctx.signal.removeEventListener('abort', stop);
      resolve({ out, err, code });
    });
  });
  const s = parsePing(run.out);
  if (run.spawnError) s.error = run.spawnError;
  else if (s.sent === 0) s.error = explain(run.err, run.code, req.hostname);
  return s;
}

/** Turns ping's complaints into sentences a user can act on. */
function explain(stderr: string, code: number | null, host: string): string {
  if (/Operation not permitted|socket: Permission denied|Lacking privilege/i.test(stderr)) {
    return 'ICMP is not permitted for this agent: run it as root, keep the ping binary’s cap_net_raw capability (Docker: --cap-add NET_RAW), or allow unprivileged ICMP with sysctl net.ipv4.ping_group_range';
  }
  if (/unknown host|Name or service not known|Temporary failure in name resolution|No address associated/i.test(stderr))
    return `DNS lookup of ${host} failed`;
  const line = stderr.trim().split('\n').pop();
  return line ? line.replace(/^ping: /, '') : `ping exited with code ${code}`;
}

export const runIcmp: CheckRunner<IcmpRequest> = async (job, ctx) => {
  const req = job.check.request;
  const count = req.pingCount ?? 10;
  const six = req.ipFamily === 'IPv6';
  const t0 = performance.now();
  const pinger = pingerFor(six ? 6 : 4);
  const s = pinger instanceof Error ? await exchangeWithPing(req, count, six, ctx) : await exchange(pinger, req, count, six ? 6 : 4, ctx);
  const elapsed = performance.now() - t0;
  const packetLoss = s.sent ? Math.round(((s.sent - s.received) / s.sent) * 10000) / 100 : 100;
  const json = {
    hostname: req.hostname,
    ipFamily: six ? 'IPv6' : 'IPv4',
    address: s.address,
    packetsSent: s.sent,
    packetsReceived: s.received,
    packetLoss,
    latency: s.latency,
  };
  let error: string | null = s.error ?? null;
  if (!error && s.received === 0) error = `no echo reply from ${req.hostname} (${s.sent} requests sent)`;
  const outcomes = error
    ? []
    : await assess(req.assertions ?? [], (a): Actual | InDocument => {
        if (a.source === 'LATENCY') return s.latency ? ((s.latency as Record<string, number>)[a.property || 'avg'] ?? null) : null;
        if (a.source === 'JSON_RESPONSE') return new InDocument(json, a.property ?? '');
        return null;
      });
  const failed = outcomes.find((o) => !o.passed);
  if (!error && failed) error = describeFailure(failed);
  return {
    // The run's measure is the average round trip, not the time the pings took to send.
    responseTime: s.latency ? s.latency.avg : Math.round(elapsed),
    error,
    assertions: outcomes,
    detail: { icmpCheckResult: { ...json, assertions: outcomes, error } },
  };
};
