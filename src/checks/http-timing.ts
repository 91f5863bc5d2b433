// When the bytes of one HTTP exchange left and arrived, and the timing phases results show.
//
// Over plain TCP the addon's watcher thread reads the kernel's arrival stamps, whatever the event
// loop is busy with. Otherwise, and as a bound on that, as early as JavaScript can know it: a
// 'readable' listener sees the socket before undici parses anything, and takes no data from it.
// The response's first byte and its last are read off these rather than off the parsed response,
// which comes later. (Over TLS the watcher is not used: the server's session tickets arrive on the
// same socket, unasked, and would pass for the response's first byte.)

import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { type Arrivals, socketArrivals } from './arrivals.js';
import type { Connection } from './http-connect.js';

export interface TimingPhases {
  wait: number;
  dns: number;
  tcp: number;
  tls: number;
  firstByte: number;
  download: number;
  total: number;
}

/** Milliseconds from the start of the run at which each event happened. */
export interface Timings {
  socket: number;
  lookup: number;
  connect: number;
  secureConnect: number | null;
  response: number;
  end: number;
}

const socketWrite = net.Socket.prototype.write as (this: net.Socket, chunk: unknown, encoding?: BufferEncoding, cb?: () => void) => boolean;

/** Readings of one exchange's socket: when the request was written and the response arrived. */
export class ExchangeClock {
  sent = 0;
  /** Event-loop readings of the first and latest arrival. */
  first = 0;
  last = 0;
  /** The kernel's stamps (plain TCP, with the addon). */
  wire: Arrivals | null = null;
  /** Bytes read off the socket by the end of the exchange. */
  received = 0;

  watch(sock: net.Socket, plain: boolean): void {
    if (plain) this.wire = socketArrivals(sock);
    // The first byte is timed from the request's write, not from the connection: what runs in
    // between is ours (undici sets up its parser; a garbage collection may land there), and the
    // server should not be charged with it. That time counts as `wait` instead.
    const written = () => {
      if (!this.sent) this.sent = performance.now();
    };
    sock.write = function (this: net.Socket, chunk: unknown, encoding?: unknown, cb?: unknown) {
      written();
      return socketWrite.call(this, chunk, encoding as BufferEncoding, cb as () => void);
    } as net.Socket['write'];
    sock.prependListener('readable', () => {
      const now = performance.now();
      if (!this.first) this.first = now;
      this.last = now;
    });
  }

  /**
   * The exchange is over: note how much its socket read and close it with `reason`, then stop the
   * watcher (closed first, the socket leaves the watcher's set with it: one system call less).
   */
  finish(sock: net.Socket | null, reason: Error): void {
    this.received = sock?.bytesRead ?? 0;
    sock?.destroy(reason);
    this.wire?.stop();
  }

  /**
   * When the response began and ended. Both readings of each byte come at or after it arrived
   * (the watcher's, from the kernel's stamps, is exact unless the event loop read the bytes
   * first), so the earlier is nearer. `headAt` is when undici had parsed the head.
   */
  responseSpan(connectAt: number, headAt: number): { response: number; end: number } {
    let response = this.first || headAt;
    const wire = this.wire?.first() ?? null;
    if (wire !== null && wire >= connectAt) response = Math.min(response, wire);
    let end = Math.max(response, this.last || performance.now());
    const wireEnd = this.received ? (this.wire?.last(this.received) ?? null) : null;
    if (wireEnd !== null && wireEnd >= response) end = Math.min(end, wireEnd);
    return { response, end };
  }
}

export const round = (n: number) => Math.round(n * 1000) / 1000;

/** The phases of one exchange from its event times (performance.now() readings). */
export function phasesOf(
  conn: Pick<Connection, 'socketAt' | 'lookupAt' | 'connectAt' | 'secureConnectAt'>,
  e: { start: number; runStart: number; sent: number; response: number; end: number },
): { timingPhases: TimingPhases; timings: Timings } {
  const connected = conn.secureConnectAt ?? conn.connectAt;
  const requested = e.sent >= connected && e.sent <= e.response ? e.sent : connected;
  return {
    timingPhases: {
      wait: round(conn.socketAt - e.start + (requested - connected)),
      dns: round(conn.lookupAt - conn.socketAt),
      tcp: round(conn.connectAt - conn.lookupAt),
      tls: round(conn.secureConnectAt === null ? 0 : conn.secureConnectAt - conn.connectAt),
      firstByte: round(e.response - requested),
      download: round(e.end - e.response),
      total: round(e.end - e.start),
    },
    timings: {
      socket: round(conn.socketAt - e.runStart),
      lookup: round(conn.lookupAt - e.runStart),
      connect: round(conn.connectAt - e.runStart),
      secureConnect: conn.secureConnectAt === null ? null : round(conn.secureConnectAt - e.runStart),
      response: round(e.response - e.runStart),
      end: round(e.end - e.runStart),
    },
  };
}
