// One question, one answer over UDP, on long-lived sockets shared by all DNS checks.
//
// A socket per query costs three system calls (bind, close and the kernel's port search) that
// dominate the CPU of a DNS check; a shared socket costs one sendto. Answers are matched by
// message id and by the address and port they came from, so a stray or late packet (or one
// from another host) is ignored. Sockets are retired after RETIRE_AFTER queries and replaced,
// so the source port keeps changing as it does with one socket per query.

import dgram from 'node:dgram';
import net from 'node:net';

const RETIRE_AFTER = 2000;

interface Waiting {
  /** Canonical address the answer must come from; null for a host name (resolved by send). */
  from: string | null;
  port: number;
  answer: (msg: Buffer) => void;
  fail: (err: Error) => void;
}

class Shared {
  readonly waiting = new Map<number, Waiting>();
  used = 0;
  private retired = false;
  private closed = false;

  constructor(readonly sock: dgram.Socket) {
    sock.unref();
    sock.on('message', (msg, from) => {
      if (msg.length < 2) return;
      const w = this.waiting.get(msg.readUInt16BE(0));
      if (w && w.port === from.port && (w.from === null || w.from === from.address || `::ffff:${w.from}` === from.address)) w.answer(msg);
    });
    // Unconnected UDP sockets report no per-destination errors: an error here is the socket's
    // own (it could not bind), and every query on it fails with it.
    sock.on('error', (err) => {
      this.retired = true;
      if (current.udp4 === this) delete current.udp4;
      if (current.udp6 === this) delete current.udp6;
      for (const w of this.waiting.values()) w.fail(err);
    });
  }

  retire(): void {
    this.retired = true;
    this.closeIfIdle();
  }

  release(id: number): void {
    this.waiting.delete(id);
    if (this.retired) this.closeIfIdle();
  }

  private closeIfIdle(): void {
    if (this.closed || this.waiting.size > 0) return;
    this.closed = true;
    this.sock.close();
  }

  /** A message id no query on this socket is waiting with. */
  freeId(): number | null {
    for (let tries = 0; tries < 64; tries++) {
      const id = (Math.random() * 65536) | 0;
      if (!this.waiting.has(id)) return id;
    }
    return null;
  }
}

const current: Partial<Record<'udp4' | 'udp6', Shared>> = {};

function socketFor(family: 'udp4' | 'udp6'): Shared {
  let s = current[family];
  if (!s || s.used >= RETIRE_AFTER || s.waiting.size >= 60_000) {
    s?.retire();
    s = current[family] = new Shared(dgram.createSocket(family));
  }
  return s;
}

/** The address as the kernel reports senders: IPv6 in its short form. */
function canonical(host: string): string | null {
  const v = net.isIP(host);
  if (v === 4) return host;
  return v === 6 ? new URL(`http://[${host}]`).hostname.slice(1, -1) : null;
}

export interface UdpExchange {
  /** Sends the query with its first two bytes set to a fresh message id. */
  send(query: Buffer): void;
  /** Stops waiting; call however the exchange ended. */
  release(): void;
}

/**
 * Sends `query` to host:port and calls `answer` with the reply whose id matches, or `fail` when
 * it cannot be sent. The query's id (its first two bytes) is replaced by one unique among the
 * queries in flight.
 */
export function udpExchange(host: string, port: number, answer: (msg: Buffer) => void, fail: (err: Error) => void): UdpExchange {
  const shared = socketFor(net.isIPv6(host) ? 'udp6' : 'udp4');
  const id = shared.freeId();
  if (id === null) throw new Error('too many DNS queries in flight');
  shared.used++;
  shared.waiting.set(id, { from: canonical(host), port, answer, fail });
  return {
    send(query) {
      query.writeUInt16BE(id, 0);
      shared.sock.send(query, port, host, (err) => err && fail(err));
    },
    release: () => shared.release(id),
  };
}
