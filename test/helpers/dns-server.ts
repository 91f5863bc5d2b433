// A small authoritative DNS server for tests, over UDP and TCP on loopback (dns-packet).

import dgram from 'node:dgram';
import net from 'node:net';
import { createRequire } from 'node:module';
import type * as DnsPacket from 'dns-packet';

const packet = createRequire(import.meta.url)('dns-packet') as typeof DnsPacket;

const ZONE: Record<string, DnsPacket.Answer[]> = {
  'probe.test/A': [{ name: 'probe.test', type: 'A', ttl: 300, class: 'IN', data: '127.0.0.1' }],
  'probe.test/AAAA': [{ name: 'probe.test', type: 'AAAA', ttl: 300, class: 'IN', data: '::1' }],
  'probe.test/MX': [{ name: 'probe.test', type: 'MX', ttl: 300, class: 'IN', data: { preference: 10, exchange: 'mail.probe.test' } }],
  'probe.test/TXT': [{ name: 'probe.test', type: 'TXT', ttl: 300, class: 'IN', data: ['v=spf1 -all'] }],
};

/** The zone's answer to a query, as a DNS message. */
export function answer(query: Buffer): Buffer {
  const q = packet.decode(query);
  const question = q.questions![0];
  const answers = ZONE[`${question.name}/${question.type}`];
  const known = Object.keys(ZONE).some((k) => k.startsWith(`${question.name}/`));
  return packet.encode({
    type: 'response',
    id: q.id,
    flags: packet.AUTHORITATIVE_ANSWER | (known ? 0 : 3), // rcode 3: NXDOMAIN
    questions: q.questions,
    answers: answers ?? [],
  });
}

export interface DnsServer {
  udpPort: number;
  tcpPort: number;
  close(): Promise<void>;
}

export async function dnsServer(): Promise<DnsServer> {
  const udp = dgram.createSocket('udp4');
  udp.on('message', (msg, rinfo) => udp.send(answer(msg), rinfo.port, rinfo.address));
  await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
  const tcp = net.createServer((s) => {
    let buf = Buffer.alloc(0);
    s.on('error', () => {});
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length < 2 || buf.length < 2 + buf.readUInt16BE(0)) return;
      const reply = answer(buf.subarray(2, 2 + buf.readUInt16BE(0)));
      const len = Buffer.alloc(2);
      len.writeUInt16BE(reply.length);
      s.end(Buffer.concat([len, reply]));
    });
  });
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
  return {
    udpPort: udp.address().port,
    tcpPort: (tcp.address() as net.AddressInfo).port,
    close: () => new Promise((r) => udp.close(() => tcp.close(() => r()))),
  };
}
