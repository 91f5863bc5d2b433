// TCP check: connect, optionally send data, read the answer, assert on it.
//
// Reading stops when the server closes, when the deadline passes, or as soon as the answer is
// complete enough to judge: after the first chunk when no assertion looks at the data, or once
// every data assertion passes. Waiting for a close that a line-based server never sends would
// turn every such check into a timeout.

import net from 'node:net';
import dns from 'node:dns/promises';
import { performance } from 'node:perf_hooks';
import { describeFailure, type Assertion } from '../domain/assertions.js';
import { assess } from './assess.js';
import type { CheckRunner } from './types.js';
import type { TcpRequest } from '../domain/check-types/tcp.js';
import { untilDeadline } from './deadline.js';
import { RunTimeoutError, TargetRefusedError } from './errors.js';

const DATA_SOURCES = new Set(['RESPONSE_DATA', 'TEXT_BODY']);

/**
 * By default a TCP check asks DNS itself (the name servers of /etc/resolv.conf), as the target's
 * users would; the agent's USE_OS_DNS_RESOLVER=true uses the operating system's resolver
 * instead, so /etc/hosts and NSS apply.
 */
async function resolve(host: string, family: 4 | 6, osResolver: boolean): Promise<string> {
  if (osResolver) return (await dns.lookup(host, { family })).address;
  const found = family === 6 ? await dns.resolve6(host) : await dns.resolve4(host);
  return found[0];
}
const MAX_READ_BYTES = 1024 * 1024;

export const runTcp: CheckRunner<TcpRequest> = async (job, ctx) => {
  const req = job.check.request;
  const assertions = req.assertions ?? [];
  const dataAssertions = assertions.filter((a) => DATA_SOURCES.has(a.source));
  const family = req.ipFamily === 'IPv6' ? 6 : 4;
  const t0 = performance.now();
  const timings = { dns: 0, connect: 0, data: 0, total: 0 };
  let address = req.hostname;
  let received = '';
  let error: string | null = null;
  let phase = 'resolving';

  try {
    if (net.isIP(req.hostname) === 0) {
      address = await withDeadline(resolve(req.hostname, family, ctx.osResolver === true), ctx.deadline, ctx.signal);
    }
    timings.dns = performance.now() - t0;
    if (ctx.guard?.refuses(address)) throw new TargetRefusedError(req.hostname, address);
    phase = 'connecting to';
    received = await exchange(address, req.port, family, req.data ?? null, dataAssertions, ctx.deadline, ctx.signal, (p, at) => {
      phase = p;
      if (p === 'reading from') timings.connect = at - t0 - timings.dns;
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e instanceof RunTimeoutError || e.name === 'AbortError') {
      error = `Timed out after ${Math.round(performance.now() - t0)} ms while ${phase} ${req.hostname}:${req.port}`;
    } else if (e instanceof TargetRefusedError) {
      error = e.message;
    } else if (
      e.code === 'ENOTFOUND' ||
      e.code === 'EAI_AGAIN' ||
      e.code === 'ENODATA' ||
      e.code === 'ESERVFAIL' ||
      (e.code === 'ECONNREFUSED' && phase === 'resolving')
    ) {
      error = `DNS lookup of ${req.hostname} failed (${e.code}) for IPv${family}`;
    } else {
      error = `${e.code ?? e.name}: ${e.message}`;
    }
  }
  timings.total = performance.now() - t0;
  if (timings.connect > 0) timings.data = timings.total - timings.dns - timings.connect;

  const outcomes = error ? [] : await assess(assertions, (a) => (a.source === 'RESPONSE_TIME' ? Math.round(timings.total) : received));
  const failed = outcomes.find((o) => !o.passed);
  if (!error && failed) error = describeFailure(failed);

  return {
    responseTime: Math.round(timings.total),
    error,
    assertions: outcomes,
    detail: {
      tcpCheckResult: {
        hostname: req.hostname,
        port: req.port,
        ipFamily: family === 6 ? 'IPv6' : 'IPv4',
        address,
        request: { data: req.data ?? null },
        response: { data: received },
        assertions: outcomes,
        timings: round(timings),
        error,
      },
    },
  };
};

function round(t: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k in t) out[k] = Math.round(t[k] * 1000) / 1000;
  return out;
}

function withDeadline<T>(p: Promise<T>, deadline: number, signal: AbortSignal): Promise<T> {
  return untilDeadline<T>(
    deadline,
    signal,
    () => {},
    (settle) =>
      p.then(
        (v) => settle(null, v),
        (e) => settle(e),
      ),
  );
}

function exchange(
  host: string,
  port: number,
  family: 4 | 6,
  data: string | null,
  dataAssertions: Assertion[],
  deadline: number,
  signal: AbortSignal,
  onPhase: (phase: string, at: number) => void,
): Promise<string> {
  const socket = net.connect({ host, port, family });
  const chunks: string[] = [];
  let size = 0;
  return untilDeadline<string>(
    deadline,
    signal,
    () => socket.destroy(),
    (settle) => {
      const finish = (err: Error | null) => settle(err, chunks.join(''));
      // Done as soon as what arrived passes the data assertions; one evaluation at a time, the
      // latest data judged once the one in flight is back.
      let judging = false;
      let more = false;
      const earlyCheck = (): void => {
        if (judging) {
          more = true;
          return;
        }
        judging = true;
        const text = chunks.join('');
        void assess(dataAssertions, () => text).then((outcomes) => {
          judging = false;
          if (outcomes.every((o) => o.passed)) finish(null);
          else if (more) {
            more = false;
            earlyCheck();
          }
        });
      };
      socket.setNoDelay(true);
      socket.once('connect', () => {
        onPhase('reading from', performance.now());
        if (data !== null) socket.write(data);
        else if (dataAssertions.length === 0) finish(null);
      });
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_READ_BYTES || dataAssertions.length === 0) return finish(null);
        earlyCheck();
      });
      socket.once('end', () => finish(null));
      socket.once('close', () => finish(null));
      socket.once('error', (err) => finish(err));
    },
  );
}
