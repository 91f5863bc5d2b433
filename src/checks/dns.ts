// DNS check: one query to a name server over UDP or TCP, judged on the response code, the
// answers (as dig-style text and as DNS-over-HTTPS-style JSON) and the time taken.

import net from 'node:net';
import dns from 'node:dns';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import type * as DnsPacket from 'dns-packet';
import { describeFailure, type AssertionOutcome, type Actual } from '../domain/assertions.js';
import { assess, InDocument } from './assess.js';
import type { CheckRunner } from './types.js';
import type { DnsRequest } from '../domain/check-types/dns.js';
import { untilDeadline } from './deadline.js';
import { RunTimeoutError, TargetRefusedError } from './errors.js';
import { udpExchange, type UdpExchange } from './udp-exchange.js';

const packet = createRequire(import.meta.url)('dns-packet') as typeof DnsPacket;

const TYPE_CODES: Record<string, number> = { A: 1, NS: 2, CNAME: 5, SOA: 6, MX: 15, TXT: 16, AAAA: 28, HTTPS: 65 };

export const runDns: CheckRunner<DnsRequest> = async (job, ctx) => {
  const req = job.check.request;
  const protocol = req.protocol ?? 'UDP';
  const server = req.nameServer || systemNameServer();
  const port = req.port ?? 53;
  const t0 = performance.now();
  // Written out, not spread from a common base: V8 builds `{ ...base, more }` on a slow path.
  const result = (
    responseCode: string | null,
    answers: string[],
    answerJson: unknown,
    assertions: AssertionOutcome[],
    total: number,
    error: string | null,
  ) => ({
    dnsCheckResult: {
      query: req.query,
      recordType: req.recordType,
      nameServer: server,
      port,
      protocol,
      responseCode,
      answers,
      answerJson,
      assertions,
      timings: { total: round(total) },
      error,
    },
  });
  let response: DnsPacket.Packet;
  try {
    const query = packet.encode({
      type: 'query',
      id: Math.floor(Math.random() * 65535),
      flags: packet.RECURSION_DESIRED,
      questions: [{ type: req.recordType as DnsPacket.RecordType, name: req.query, class: 'IN' }],
    });
    // The system's own name server is the operator's; a name server the check names is a target.
    let address = server;
    if (ctx.guard && req.nameServer) {
      if (net.isIP(server) === 0) address = (await dns.promises.lookup(server)).address;
      if (ctx.guard.refuses(address)) throw new TargetRefusedError(server, address);
    }
    const raw =
      protocol === 'TCP'
        ? await overTcp(query, address, port, ctx.deadline, ctx.signal)
        : await overUdp(query, address, port, ctx.deadline, ctx.signal);
    response = packet.decode(raw);
  } catch (err) {
    const total = performance.now() - t0;
    const e = err as NodeJS.ErrnoException;
    const error =
      e instanceof RunTimeoutError
        ? `Timed out after ${Math.round(total)} ms waiting for ${server}:${port} over ${protocol}`
        : e instanceof TargetRefusedError
          ? e.message
          : `${e.code ?? e.name}: ${e.message}`;
    return { responseTime: Math.round(total), error, assertions: [], detail: result(null, [], null, [], total, error) };
  }
  const total = performance.now() - t0;
  const responseCode = (response as { rcode?: string }).rcode ?? 'NOERROR';
  const answers = (response.answers ?? []) as DnsPacket.Answer[];
  const text = answers.map(textLine);
  const json = {
    Status: rcodeNumber(responseCode),
    TC: Boolean((response.flags ?? 0) & packet.TRUNCATED_RESPONSE),
    RD: Boolean((response.flags ?? 0) & packet.RECURSION_DESIRED),
    RA: Boolean((response.flags ?? 0) & packet.RECURSION_AVAILABLE),
    Question: [{ name: req.query, type: TYPE_CODES[req.recordType] ?? 0 }],
    Answer: answers.map((a) => ({ name: a.name, type: TYPE_CODES[a.type] ?? 0, TTL: (a as { ttl?: number }).ttl ?? 0, data: dataText(a) })),
  };
  const outcomes = await assess(req.assertions ?? [], (a): Actual | InDocument => {
    switch (a.source) {
      case 'RESPONSE_CODE':
        return responseCode;
      case 'RESPONSE_TIME':
        return Math.round(total);
      case 'TEXT_ANSWER':
        return text.join('\n');
      case 'JSON_ANSWER':
        return new InDocument(json, a.property ?? '');
      default:
        return null;
    }
  });
  const failed = outcomes.find((o) => !o.passed);
  // Without assertions an answer that is not NOERROR is a failure, as a resolver would treat it.
  const error = failed
    ? describeFailure(failed)
    : (req.assertions ?? []).length === 0 && responseCode !== 'NOERROR'
      ? `response code ${responseCode}`
      : null;
  return {
    responseTime: Math.round(total),
    error,
    assertions: outcomes,
    detail: result(responseCode, text, json, outcomes, total, error),
  };
};

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function systemNameServer(): string {
  const first = dns.getServers()[0] ?? '127.0.0.1';
  // getServers() may carry a port ("[::1]:5353", "127.0.0.1:5353"): the request's port wins.
  return first.replace(/^\[(.*)\](:\d+)?$/, '$1').replace(/^([\d.]+):\d+$/, '$1');
}

const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];
function rcodeNumber(code: string): number {
  const i = RCODES.indexOf(code);
  return i >= 0 ? i : -1;
}

function dataText(a: DnsPacket.Answer): string {
  const d = (a as { data?: unknown }).data;
  switch (a.type) {
    case 'MX': {
      const mx = d as { preference: number; exchange: string };
      return `${mx.preference} ${mx.exchange}.`;
    }
    case 'TXT':
      return (Array.isArray(d) ? d : [d]).map((x) => JSON.stringify(Buffer.isBuffer(x) ? x.toString('utf8') : String(x))).join(' ');
    case 'SOA': {
      const s = d as { mname: string; rname: string; serial: number; refresh: number; retry: number; expire: number; minimum: number };
      return `${s.mname}. ${s.rname}. ${s.serial} ${s.refresh} ${s.retry} ${s.expire} ${s.minimum}`;
    }
    case 'CNAME':
    case 'NS':
      return `${d}.`;
    default:
      return typeof d === 'string' ? d : JSON.stringify(d);
  }
}

function textLine(a: DnsPacket.Answer): string {
  return `${a.name}.\t${(a as { ttl?: number }).ttl ?? 0}\tIN\t${a.type}\t${dataText(a)}`;
}

function overUdp(query: Buffer, host: string, port: number, deadline: number, signal: AbortSignal): Promise<Buffer> {
  let exchange: UdpExchange | null = null;
  return untilDeadline<Buffer>(
    deadline,
    signal,
    () => exchange?.release(),
    (settle) => {
      try {
        exchange = udpExchange(host, port, (msg) => settle(null, msg), settle);
        exchange.send(query);
      } catch (err) {
        settle(err as Error);
      }
    },
  );
}

function overTcp(query: Buffer, host: string, port: number, deadline: number, signal: AbortSignal): Promise<Buffer> {
  const sock = net.connect({ host, port });
  let buf = Buffer.alloc(0);
  return untilDeadline<Buffer>(
    deadline,
    signal,
    () => sock.destroy(),
    (settle) => {
      sock.on('error', (e) => settle(e));
      sock.on('connect', () => {
        const len = Buffer.alloc(2);
        len.writeUInt16BE(query.length);
        sock.write(Buffer.concat([len, query]));
      });
      sock.on('data', (chunk) => {
        buf = Buffer.concat([buf, chunk]);
        if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) settle(null, buf.subarray(2, 2 + buf.readUInt16BE(0)));
      });
      sock.on('end', () => settle(new Error('the name server closed the connection before answering')));
    },
  );
}
