// The DNS runner against a real DNS server on loopback, over UDP and TCP.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { runDns } from '../../src/checks/dns.js';
import dgram from 'node:dgram';
import { createRequire } from 'node:module';
import type * as DnsPacket from 'dns-packet';
import { dnsServer, answer, type DnsServer } from '../helpers/dns-server.js';
import { jobOf, runJob, type Job } from '../helpers/runner.js';

const packet = createRequire(import.meta.url)('dns-packet') as typeof DnsPacket;

let ns: DnsServer;
beforeAll(async () => {
  ns = await dnsServer();
});
afterAll(async () => {
  await ns.close();
});

const job = (request: Record<string, unknown>, timeoutMs = 2000) =>
  jobOf('DNS', { nameServer: '127.0.0.1', port: ns.udpPort, protocol: 'UDP', ...request }, { timeoutMs });
const run = (j: Job) => runJob(runDns, j);
const detail = (o: Awaited<ReturnType<typeof run>>) => o.detail.dnsCheckResult as any;

describe('DNS runner', () => {
  it('answers A over UDP as text and JSON', async () => {
    const out = await run(
      job({
        recordType: 'A',
        query: 'probe.test',
        assertions: [
          { source: 'RESPONSE_CODE', comparison: 'EQUALS', target: 'NOERROR' },
          { source: 'TEXT_ANSWER', comparison: 'EQUALS', target: '127.0.0.1', regex: 'IN\\s+A\\s+(\\S+)' },
          { source: 'JSON_ANSWER', comparison: 'EQUALS', property: '$.Answer[0].data', target: '127.0.0.1' },
          { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '500' },
        ],
      }),
    );
    expect(out.error).toBeNull();
    expect(detail(out).answers).toEqual(['probe.test.\t300\tIN\tA\t127.0.0.1']);
    expect(detail(out).answerJson.Answer[0]).toEqual({ name: 'probe.test', type: 1, TTL: 300, data: '127.0.0.1' });
  });

  it('answers AAAA, MX and TXT over TCP', async () => {
    const tcp = { protocol: 'TCP', port: ns.tcpPort };
    expect(detail(await run(job({ ...tcp, recordType: 'AAAA', query: 'probe.test' }))).answers[0]).toMatch(/IN\tAAAA\t::1$/);
    expect(detail(await run(job({ ...tcp, recordType: 'MX', query: 'probe.test' }))).answers[0]).toMatch(/IN\tMX\t10 mail\.probe\.test\.$/);
    const txt = await run(
      job({
        ...tcp,
        recordType: 'TXT',
        query: 'probe.test',
        assertions: [{ source: 'JSON_ANSWER', comparison: 'CONTAINS', property: '$.Answer[*].data', target: 'spf1' }],
      }),
    );
    expect(txt.error).toBeNull();
    expect(detail(txt).protocol).toBe('TCP');
  });

  it('reports NXDOMAIN, and fails on it unless asserted', async () => {
    const plain = await run(job({ recordType: 'A', query: 'missing.test' }));
    expect(plain.error).toBe('response code NXDOMAIN');
    const expected = await run(
      job({ recordType: 'A', query: 'missing.test', assertions: [{ source: 'RESPONSE_CODE', comparison: 'EQUALS', target: 'NXDOMAIN' }] }),
    );
    expect(expected.error).toBeNull();
    expect(detail(expected).answerJson.Status).toBe(3);
  });

  it('times out against a server that never answers', async () => {
    const silent = (await import('node:dgram')).createSocket('udp4');
    await new Promise<void>((r) => silent.bind(0, '127.0.0.1', r));
    try {
      const out = await run(job({ recordType: 'A', query: 'probe.test', port: silent.address().port }, 300));
      expect(out.error).toMatch(/^Timed out after \d+ ms waiting for 127\.0\.0\.1:\d+ over UDP$/);
    } finally {
      silent.close();
    }
  });

  it('fails with the assertion that did not hold', async () => {
    const out = await run(
      job({
        recordType: 'A',
        query: 'probe.test',
        assertions: [{ source: 'JSON_ANSWER', comparison: 'HAS_KEY', property: '$.Answer[0]', target: 'priority' }],
      }),
    );
    expect(out.error).toMatch(/^assertion failed: JSON_ANSWER HAS_KEY "priority"/);
  });
});

describe('DNS runner, many queries at once', () => {
  it('answers each of 50 parallel UDP queries with its own response', async () => {
    const outs = await Promise.all(
      Array.from({ length: 50 }, (_, i) => run(job({ recordType: i % 2 ? 'A' : 'AAAA', query: 'probe.test' }))),
    );
    outs.forEach((o, i) => {
      expect(o.error).toBeNull();
      expect(detail(o).answers[0]).toContain(i % 2 ? '127.0.0.1' : '::1');
    });
  });
});

// UDP queries share a few long-lived sockets: these are the guarantees one socket per query gave.
describe('DNS runner, shared UDP sockets', () => {
  async function udpSocket(type: 'udp4' | 'udp6', host: string): Promise<dgram.Socket> {
    const s = dgram.createSocket(type);
    await new Promise<void>((r) => s.bind(0, host, r));
    return s;
  }

  it('takes the answer only from the server it asked: the same id from another port is ignored', async () => {
    const server = await udpSocket('udp4', '127.0.0.1');
    const impostor = await udpSocket('udp4', '127.0.0.1');
    server.on('message', (msg, from) => {
      const forged = packet.encode({
        type: 'response',
        id: msg.readUInt16BE(0),
        flags: packet.AUTHORITATIVE_ANSWER | 3,
        questions: packet.decode(msg).questions,
      });
      // The forgery reaches the agent first; the real answer follows it.
      impostor.send(forged, from.port, from.address, () => server.send(answer(msg), from.port, from.address));
    });
    try {
      const out = await run(job({ recordType: 'A', query: 'probe.test', port: server.address().port }));
      expect(out.error).toBeNull();
      expect(detail(out).responseCode).toBe('NOERROR');
      expect(detail(out).answers).toEqual(['probe.test.\t300\tIN\tA\t127.0.0.1']);
    } finally {
      server.close();
      impostor.close();
    }
  });

  it('asks a name server on ::1 over IPv6', async () => {
    const server = await udpSocket('udp6', '::1');
    server.on('message', (msg, from) => server.send(answer(msg), from.port, from.address));
    try {
      const out = await run(job({ recordType: 'AAAA', query: 'probe.test', nameServer: '::1', port: server.address().port }));
      expect(out.error).toBeNull();
      expect(detail(out).answers[0]).toMatch(/IN\tAAAA\t::1$/);
    } finally {
      server.close();
    }
  });

  it('moves to a new source port every few thousand queries', async () => {
    const server = await udpSocket('udp4', '127.0.0.1');
    const ports = new Set<number>();
    server.on('message', (msg, from) => {
      ports.add(from.port);
      server.send(answer(msg), from.port, from.address);
    });
    try {
      for (let round = 0; round < 42; round++) {
        const outs = await Promise.all(
          Array.from({ length: 100 }, () => run(job({ recordType: 'A', query: 'probe.test', port: server.address().port }))),
        );
        expect(outs.filter((o) => o.error !== null)).toEqual([]);
      }
      // 4,200 queries: more than one socket (the port changed), far fewer than one per query.
      expect(ports.size).toBeGreaterThanOrEqual(2);
      expect(ports.size).toBeLessThanOrEqual(4);
    } finally {
      server.close();
    }
  });
});
