// One HTTP exchange with its timing phases measured on the socket: shared by URL and API checks.
//
// Each run gets its own undici Client whose connector does the DNS lookup, the TCP connect and the
// TLS handshake itself, so every phase is a clock reading at the event, not a guess. The Client
// is closed after the run: a check measures a fresh connection every time, as a user's first
// visit would.

import net from 'node:net';
import tls from 'node:tls';
import dns from 'node:dns';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { Client } from '../undici-lite.js';
import { timeoutError, armDeadline } from './deadline.js';
import { socketArrivals, type Arrivals } from './arrivals.js';
import type { RunContext } from './types.js';

export interface HttpRequest {
  url: string;
  method: string;
  headers?: Record<string, string>;
  body?: string | null;
  transport: Transport;
  /** Bytes of the body kept for assertions; the rest is read (to time the download) and dropped. */
  keepBodyBytes: number;
  /** http(s)://[user:pass@]host:port of a proxy to tunnel through (CONNECT). */
  proxyUrl?: string | null;
}

export interface TlsFacts {
  protocol: string | null;
  cipher: string | null;
  authorized: boolean;
  authorizationError: string | null;
  issuer: Record<string, unknown> | null;
  subject: Record<string, unknown> | null;
  subjectAltNames: string[];
  validFrom: string | null;
  validTo: string | null;
  daysRemaining: number | null;
}

export interface TimingPhases {
  wait: number;
  dns: number;
  tcp: number;
  tls: number;
  firstByte: number;
  download: number;
  total: number;
}

export interface HttpOutcome {
  url: string;
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: string;
  bodyBytes: number;
  redirects: number;
  remoteAddress: string | null;
  tls: TlsFacts | null;
  timingPhases: TimingPhases;
  /** Milliseconds from the start of the run at which each event happened. */
  timings: { socket: number; lookup: number; connect: number; secureConnect: number | null; response: number; end: number };
}

export class HttpError extends Error {
  constructor(
    message: string,
    readonly phase: string,
    readonly partial: Partial<HttpOutcome>,
  ) {
    super(message);
  }
}

const MAX_REDIRECTS = 10;
const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  301: 'Moved Permanently',
  302: 'Found',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export interface Transport {
  followRedirects: boolean;
  skipSSL: boolean;
  ipFamily: 'IPv4' | 'IPv6';
  deadline: number;
  signal: AbortSignal;
}

/** What URL and API checks set alike: their transport options, with the spec's defaults, and the run's limits. */
export function transportOf(r: { followRedirects?: boolean; skipSSL?: boolean; ipFamily?: 'IPv4' | 'IPv6' }, ctx: RunContext): Transport {
  return {
    followRedirects: r.followRedirects ?? true,
    skipSSL: r.skipSSL ?? false,
    ipFamily: r.ipFamily ?? 'IPv4',
    deadline: ctx.deadline,
    signal: ctx.signal,
  };
}

export async function timedRequest(req: HttpRequest): Promise<HttpOutcome> {
  const t0 = performance.now();
  let url = req.url;
  let method = req.method;
  let body = req.body ?? null;
  for (let redirects = 0; ; redirects++) {
    const out = await once(req, url, method, body, t0);
    const location = out.headers.location;
    if (!req.transport.followRedirects || out.status < 300 || out.status >= 400 || !location || redirects >= MAX_REDIRECTS) {
      out.redirects = redirects;
      out.timingPhases.total = round(performance.now() - t0);
      return out;
    }
    url = new URL(location, url).toString();
    if (out.status === 303 || ((out.status === 301 || out.status === 302) && method === 'POST')) {
      method = 'GET';
      body = null;
    }
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

async function once(req: HttpRequest, url: string, method: string, body: string | null, runStart: number): Promise<HttpOutcome> {
  const { deadline, signal } = req.transport;
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new HttpError(`unsupported protocol ${target.protocol}`, 'request', {});
  const family = req.transport.ipFamily === 'IPv6' ? 6 : 4;
  const start = performance.now();
  const mark = { socket: start, lookup: start, connect: start, secureConnect: null as number | null, sent: 0, response: start, end: start };
  let tlsFacts: TlsFacts | null = null;
  let remoteAddress: string | null = null;
  let socket: net.Socket | null = null;
  let phase = 'dns';

  // When bytes arrive. Over plain TCP the addon's watcher thread reads the kernel's arrival
  // stamps (`onWire`), whatever the event loop is busy with. Otherwise, and as a bound on that, as
  // early as JavaScript can know it: a 'readable' listener sees the socket before undici parses
  // anything, and takes no data from it. The response's first byte and its last are read off
  // these rather than off the parsed response, which comes later.
  // (Over TLS the watcher is not used: the server's session tickets arrive on the same socket,
  // unasked, and would pass for the response's first byte.)
  let onWire = null as Arrivals | null;
  let received = 0;
  const arrivals = { first: 0, last: 0 };
  const watchArrivals = (sock: net.Socket) => {
    // The first byte is timed from the request's write, not from the connection: what runs in
    // between is ours (undici sets up its parser; a garbage collection may land there), and the
    // server should not be charged with it. That time counts as `wait` instead.
    sock.write = function (this: net.Socket, chunk: unknown, encoding?: unknown, cb?: unknown) {
      if (!mark.sent) mark.sent = performance.now();
      return socketWrite.call(this, chunk, encoding as BufferEncoding, cb as () => void);
    } as net.Socket['write'];
    sock.prependListener('readable', () => {
      const now = performance.now();
      if (!arrivals.first) arrivals.first = now;
      arrivals.last = now;
    });
  };

  const agent = new Client(target.origin, {
    pipelining: 1,
    // undici's own header and body timers are off: the run's deadline (armDeadline below) covers
    // every phase, and each of them would set and clear a timer per run.
    headersTimeout: 0,
    bodyTimeout: 0,
    connect(
      opts: { hostname: string; port: string | number; protocol: string; servername?: string | null },
      cb: (err: Error | null, socket: net.Socket | null) => void,
    ) {
      const host = opts.hostname.replace(/^\[|\]$/g, '');
      const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
      const proxy = req.proxyUrl ? new URL(req.proxyUrl) : null;
      const afterLookup = (err: Error | null, address?: string) => {
        mark.lookup = performance.now();
        if (err) return cb(err, null);
        phase = 'tcp';
        remoteAddress = address!;
        const raw = net.connect({
          host: address!,
          port: proxy ? Number(proxy.port) || (proxy.protocol === 'https:' ? 443 : 80) : port,
          family,
        });
        raw.setNoDelay(true);
        raw.once('error', (e) => cb(e, null));
        raw.once('connect', () => {
          if (!proxy) return connected(raw);
          // Through the proxy: a CONNECT tunnel to the target, then the same exchange inside it.
          phase = 'proxy';
          const auth = proxy.username
            ? `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}\r\n`
            : '';
          const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
          raw.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth}\r\n`);
          let head = '';
          const onData = (d: Buffer) => {
            head += d.toString('latin1');
            const end = head.indexOf('\r\n\r\n');
            if (end < 0) return;
            raw.off('data', onData);
            const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
            if (status !== 200)
              return cb(
                Object.assign(new Error(`the proxy refused the tunnel to ${authority} (status ${status || 'unreadable'})`), {
                  code: 'EPROXY',
                }),
                null,
              );
            connected(raw);
          };
          raw.on('data', onData);
        });
      };
      const connected = (raw: net.Socket) => {
        mark.connect = performance.now();
        if (opts.protocol !== 'https:') {
          raw.removeAllListeners('error');
          phase = 'firstByte';
          onWire = socketArrivals(raw);
          watchArrivals(raw);
          socket = raw;
          return cb(null, raw);
        }
        phase = 'tls';
        // Verification is judged below, so the certificate's facts are kept when it fails.
        const sock = tls.connect({
          socket: raw,
          servername: net.isIP(host) ? undefined : host,
          rejectUnauthorized: false,
          ALPNProtocols: ['http/1.1'],
        });
        sock.once('error', (e) => cb(e, null));
        sock.once('secureConnect', () => {
          mark.secureConnect = performance.now();
          tlsFacts = tlsFactsOf(sock);
          sock.removeAllListeners('error');
          raw.removeAllListeners('error');
          if (!req.transport.skipSSL && !sock.authorized) {
            sock.destroy();
            return cb(
              Object.assign(new Error(`TLS certificate rejected: ${describeTlsError(String(sock.authorizationError))}`), {
                code: 'CERT_INVALID',
              }),
              null,
            );
          }
          phase = 'firstByte';
          watchArrivals(sock);
          socket = sock;
          cb(null, sock);
        });
      };
      const lookupHost = proxy ? proxy.hostname.replace(/^\[|\]$/g, '') : host;
      mark.socket = performance.now();
      if (net.isIP(lookupHost)) afterLookup(null, lookupHost);
      else dns.lookup(lookupHost, { family }, (err, address) => afterLookup(err, address));
    },
  } as unknown as ConstructorParameters<typeof Client>[1]);

  const disarm = armDeadline(deadline, signal, () => agent.destroy(timeoutError(), noop));
  const partial = (): Partial<HttpOutcome> => ({ url, tls: tlsFacts, remoteAddress });
  let clean = false;
  try {
    const res = await exchange(
      agent,
      {
        origin: target.origin,
        path: target.pathname + target.search,
        method: method as Dispatcher.HttpMethod,
        headers: req.headers,
        body: body ?? undefined,
      },
      req.keepBodyBytes,
      () => {
        mark.response = arrivals.first || performance.now();
        phase = 'download';
      },
      () => {
        // The connection has served its one exchange. Closing it here, with one shared error,
        // spares undici building (and Node formatting) an error of its own for every run.
        // (Closed first, its socket leaves the watcher's set with it: one system call less.)
        received = socket?.bytesRead ?? 0;
        socket?.destroy(EXCHANGE_DONE);
        onWire?.stop();
        // When the server said `Connection: close`, undici goes on to build an error of its own
        // ('reset') for the socket just closed, and nothing reads it. Its stack trace is most of
        // its cost (~10 µs a run here, 2-5 % of a URL check), so traces are off until this
        // exchange's own close callbacks have run (errors built there are dropped too).
        quietStackTraces();
      },
    );
    // Both readings of each byte come at or after it arrived (the watcher's, from the kernel's
    // stamps, is exact unless the event loop read the bytes first), so the earlier is nearer.
    const wire = onWire?.first() ?? null;
    if (wire !== null && wire >= mark.connect) mark.response = Math.min(mark.response, wire);
    mark.end = Math.max(mark.response, arrivals.last || performance.now());
    const wireEnd = received ? (onWire?.last(received) ?? null) : null;
    if (wireEnd !== null && wireEnd >= mark.response) mark.end = Math.min(mark.end, wireEnd);
    const connected = mark.secureConnect ?? mark.connect;
    const requested = mark.sent >= connected && mark.sent <= mark.response ? mark.sent : connected;
    const ours = requested - connected;
    clean = true;
    const headers: Record<string, string> = {};
    for (const k in res.headers) {
      const v = res.headers[k];
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    return {
      url,
      status: res.status,
      statusText: STATUS_TEXT[res.status] ?? '',
      headers,
      body: res.body,
      bodyBytes: res.bodyBytes,
      redirects: 0,
      remoteAddress,
      tls: tlsFacts,
      timingPhases: {
        wait: round(mark.socket - start + ours),
        dns: round(mark.lookup - mark.socket),
        tcp: round(mark.connect - mark.lookup),
        tls: round(mark.secureConnect === null ? 0 : mark.secureConnect - mark.connect),
        firstByte: round(mark.response - requested),
        download: round(mark.end - mark.response),
        total: round(mark.end - start),
      },
      timings: {
        socket: round(mark.socket - runStart),
        lookup: round(mark.lookup - runStart),
        connect: round(mark.connect - runStart),
        secureConnect: mark.secureConnect === null ? null : round(mark.secureConnect - runStart),
        response: round(mark.response - runStart),
        end: round(mark.end - runStart),
      },
    };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const waited = Math.round(performance.now() - runStart);
    if (e.name === 'TimeoutError' || signal.aborted || Date.now() >= deadline) {
      throw new HttpError(
        `Timed out after ${waited} ms while waiting for ${phase === 'dns' ? 'DNS' : phase} from ${target.host}`,
        phase,
        partial(),
      );
    }
    if (e.code === 'CERT_INVALID' || e.code === 'EPROXY') throw new HttpError(e.message, phase, partial());
    if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN' || e.code === 'ENODATA') {
      throw new HttpError(`DNS lookup of ${target.hostname} failed (${e.code}) for IPv${family}`, 'dns', partial());
    }
    throw new HttpError(`${e.code ?? e.name}: ${e.message}`, phase, partial());
  } finally {
    onWire?.stop();
    disarm();
    // After a clean exchange the client is destroyed with one shared error: undici would
    // otherwise build a fresh one (and Node format its stack) for every run.
    if (clean) agent.destroy(EXCHANGE_DONE, noop);
    else agent.destroy(noop);
  }
}

const noop = () => {};
let savedStackTraceLimit: number | null = null;
/** Stack traces off until the next tick; however often it is called meanwhile, one restore. */
function quietStackTraces(): void {
  if (savedStackTraceLimit !== null) return;
  savedStackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  process.nextTick(() => {
    Error.stackTraceLimit = savedStackTraceLimit!;
    savedStackTraceLimit = null;
  });
}
const socketWrite = net.Socket.prototype.write as (this: net.Socket, chunk: unknown, encoding?: BufferEncoding, cb?: () => void) => boolean;
const EXCHANGE_DONE = Object.assign(new Error('exchange done'), { code: 'EXCHANGE_DONE' });

interface Exchanged {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  bodyBytes: number;
}

/**
 * One request on the client through undici's dispatch handler: the body is counted as it
 * arrives and its first `keep` bytes kept, without a stream or an iterator per response.
 * `started` is called when the response head has been parsed, `ended` when its body is in.
 */
function exchange(
  client: InstanceType<typeof Client>,
  opts: Dispatcher.DispatchOptions,
  keep: number,
  started: () => void,
  ended: () => void,
): Promise<Exchanged> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let headers: Exchanged['headers'] = {};
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let bodyBytes = 0;
    client.dispatch(opts, {
      onRequestStart() {},
      onResponseStart(_controller, statusCode, responseHeaders) {
        status = statusCode;
        headers = responseHeaders as Exchanged['headers'];
        started();
      },
      onResponseData(_controller, chunk) {
        bodyBytes += chunk.length;
        if (keptBytes < keep) {
          const part = chunk.subarray(0, keep - keptBytes);
          kept.push(part);
          keptBytes += part.length;
        }
      },
      onResponseEnd() {
        ended();
        resolve({ status, headers, body: keptBytes ? Buffer.concat(kept).toString('utf8') : '', bodyBytes });
      },
      onResponseError(_controller, err) {
        reject(err);
      },
    });
  });
}

const TLS_ERRORS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in the chain',
  CERT_HAS_EXPIRED: 'certificate has expired',
  CERT_NOT_YET_VALID: 'certificate is not yet valid',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'unable to verify the first certificate',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'issuer certificate not found',
  ERR_TLS_CERT_ALTNAME_INVALID: 'certificate does not name this host',
};

function describeTlsError(code: string): string {
  return TLS_ERRORS[code] ? `${TLS_ERRORS[code]} (${code})` : code;
}

function tlsFactsOf(sock: tls.TLSSocket): TlsFacts {
  const cert = sock.getPeerCertificate();
  const has = cert && Object.keys(cert).length > 0;
  const validTo = has && cert.valid_to ? new Date(cert.valid_to) : null;
  return {
    protocol: sock.getProtocol(),
    cipher: sock.getCipher()?.name ?? null,
    authorized: sock.authorized,
    authorizationError: sock.authorizationError ? String(sock.authorizationError) : null,
    issuer: has ? { ...cert.issuer } : null,
    subject: has ? { ...cert.subject } : null,
    subjectAltNames: has && cert.subjectaltname ? cert.subjectaltname.split(', ') : [],
    validFrom: has && cert.valid_from ? new Date(cert.valid_from).toISOString() : null,
    validTo: validTo ? validTo.toISOString() : null,
    daysRemaining: validTo ? Math.floor((validTo.getTime() - Date.now()) / 86_400_000) : null,
  };
}

/** The response as results show it (URL and API checks alike); `shown` masks what must not be stored. */
export function responseView(res: HttpOutcome, body: string, shown: <T>(v: T) => T = (v) => v) {
  return {
    status: res.status,
    statusText: res.statusText,
    body: shown(body),
    headers: shown(res.headers),
    timings: res.timings,
    timingPhases: res.timingPhases,
    redirects: res.redirects,
    remoteAddress: res.remoteAddress,
  };
}

/** A URL or API run that got no response: a failed result naming why, with what is known of TLS. */
export function exchangeFailure(err: unknown, request: unknown, startedAt: number, shown: (s: string) => string = (s) => s) {
  const e = err instanceof HttpError ? err : new HttpError((err as Error).message, 'request', {});
  const message = shown(e.message);
  return {
    responseTime: Math.max(0, Math.round(Date.now() - startedAt)),
    error: message,
    assertions: [],
    detail: { apiCheckResult: { assertions: [], request, response: null, tls: e.partial.tls ?? null, requestError: message } } as Record<
      string,
      unknown
    >,
  };
}
