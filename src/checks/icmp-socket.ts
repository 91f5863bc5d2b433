// Echo requests over the agent's own ICMP socket (src/native/icmp.c), shared by every ICMP run
// of one address family: one socket, one sequence space, replies matched to their request by
// sequence number and a random token in the payload.

import { randomBytes } from 'node:crypto';
import { nativeAddon } from './native.js';

interface NativeSocket {
  readonly kind: 'raw' | 'dgram';
  send(packet: Buffer, address: string): number;
  close(): void;
}
export type NativeCtor = new (family: 4 | 6, onMessage: (packet: Buffer, from: string, at: number) => void) => NativeSocket;

/** The addon's socket, or null when it was not built (then ICMP runs fall back to the ping program). */
function loadNative(): NativeCtor | null {
  return nativeAddon()?.IcmpSocket ?? null;
}

interface Pending {
  token: Buffer;
  address: string;
  sentAt: number;
  done: (rttMs: number | null) => void;
  timer: NodeJS.Timeout;
}

const ECHO_REQUEST = { 4: 8, 6: 128 } as const;
const ECHO_REPLY = { 4: 0, 6: 129 } as const;

/** RFC 1071 checksum; the kernel fills it in for ICMPv6 itself. */
function checksum(b: Buffer): number {
  let sum = 0;
  for (let i = 0; i + 1 < b.length; i += 2) sum += b.readUInt16BE(i);
  if (b.length & 1) sum += b[b.length - 1]! << 8;
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return ~sum & 0xffff;
}

export class Pinger {
  readonly kind: 'raw' | 'dgram';
  readonly #socket: NativeSocket;
  readonly #family: 4 | 6;
  // Raw sockets see every echo reply on the host; ours carry this identifier. Unprivileged
  // sockets get one from the kernel, which also routes only our replies to us.
  readonly #id = process.pid & 0xffff;
  readonly #pending = new Map<number, Pending>();
  #seq = Math.floor(Math.random() * 0x10000);
  // Tokens tell a reply from a stale one that reuses its sequence number: a random prefix per
  // socket and a counter, so no entropy is drawn per echo.
  readonly #tokenPrefix = randomBytes(4).readUInt32BE(0);
  #tokenCount = 0;

  constructor(Socket: NativeCtor, family: 4 | 6) {
    this.#family = family;
    this.#socket = new Socket(family, (packet, from, at) => this.#receive(packet, from, at));
    this.kind = this.#socket.kind;
  }

  /** One echo exchange: the round trip in ms, or null when no reply came within timeoutMs. */
  echo(address: string, timeoutMs: number): Promise<number | null> {
    let seq = this.#seq;
    // Skip sequence numbers still waiting (possible only with 65,536 pings in flight).
    for (let i = 0; this.#pending.has(seq) && i < 0x10000; i++) seq = (seq + 1) & 0xffff;
    if (this.#pending.has(seq)) return Promise.reject(new Error('too many ICMP echo requests in flight'));
    this.#seq = (seq + 1) & 0xffff;
    const packet = Buffer.alloc(8 + 48);
    packet.writeUInt32BE(this.#tokenPrefix, 8);
    this.#tokenCount = (this.#tokenCount + 1) >>> 0;
    packet.writeUInt32BE(this.#tokenCount, 12);
    const token = packet.subarray(8, 16);
    packet[0] = ECHO_REQUEST[this.#family];
    packet.writeUInt16BE(this.#id, 4);
    packet.writeUInt16BE(seq, 6);
    if (this.#family === 4) packet.writeUInt16BE(checksum(packet), 2);
    return new Promise((resolve, reject) => {
      let sentAt: number;
      try {
        sentAt = this.#socket.send(packet, address);
      } catch (e) {
        reject(e);
        return;
      }
      const timer = setTimeout(() => this.#settle(seq, null), timeoutMs);
      this.#pending.set(seq, { token, address, sentAt, timer, done: resolve });
    });
  }

  #settle(seq: number, rtt: number | null): void {
    const p = this.#pending.get(seq);
    if (!p) return;
    this.#pending.delete(seq);
    clearTimeout(p.timer);
    p.done(rtt);
  }

  #receive(packet: Buffer, from: string, at: number): void {
    // IPv4 raw sockets hand over the IP header too.
    const icmp = this.kind === 'raw' && this.#family === 4 ? packet.subarray((packet[0]! & 0x0f) * 4) : packet;
    if (icmp.length < 16 || icmp[0] !== ECHO_REPLY[this.#family]) return;
    if (this.kind === 'raw' && icmp.readUInt16BE(4) !== this.#id) return;
    const seq = icmp.readUInt16BE(6);
    const p = this.#pending.get(seq);
    if (!p || from !== p.address || !icmp.subarray(8, 16).equals(p.token)) return;
    this.#settle(seq, Math.max(0, at - p.sentAt));
  }
}

const pingers = new Map<4 | 6, Pinger | Error>();

/**
 * The shared pinger of a family, or the reason there is none: the addon was not built, or the
 * agent may open neither an unprivileged nor a raw ICMP socket.
 */
export function pingerFor(family: 4 | 6): Pinger | Error {
  const known = pingers.get(family);
  if (known) return known;
  const Socket = loadNative();
  let made: Pinger | Error;
  if (!Socket) made = new Error('native ICMP socket not built');
  else {
    try {
      made = new Pinger(Socket, family);
    } catch (e) {
      made = e as Error;
    }
  }
  pingers.set(family, made);
  return made;
}

/** What ICMP runs of this process use, for the agent's start-up log. */
export function icmpEngine(): string {
  const p = pingerFor(4);
  if (!(p instanceof Error)) return p.kind === 'raw' ? 'raw ICMP socket' : 'unprivileged ICMP socket';
  return `the ping program (no ICMP socket: ${p.message})`;
}
