// One HTTP exchange of a URL or API check, with its timing phases measured on the socket.
//
// Each run gets its own undici Client whose connector (http-connect.ts) does the DNS lookup, the
// TCP connect, the proxy tunnel and the TLS handshake itself, so every phase is a clock reading at
// the event, not a guess; http-timing.ts reads when the bytes left and arrived. The Client is
// closed after the run: a check measures a fresh connection every time, as a user's first visit
// would.

import type { TargetGuard } from '../domain/target-guard.js';
import { STATUS_CODES } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { Client } from '../undici-lite.js';
import { armDeadline } from './deadline.js';
import { RunError, RunTimeoutError } from './errors.js';
import { type Connection, connectorFor, type HttpPhase, newConnection, type TlsFacts } from './http-connect.js';
import { ExchangeClock, phasesOf, round, type TimingPhases, type Timings } from './http-timing.js';
import type { RunContext } from './types.js';

export type { TlsFacts } from './http-connect.js';
export type { TimingPhases } from './http-timing.js';

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
  timings: Timings;
}

/** A run that got no response: why, in which phase, and what was known of the connection. */
export class HttpError extends RunError {
  constructor(
    message: string,
    readonly phase: HttpPhase | 'request',
    readonly partial: Partial<HttpOutcome>,
  ) {
    super('OUTPOST_HTTP_FAILED', message);
  }
}

const MAX_REDIRECTS = 10;

export interface Transport {
  followRedirects: boolean;
  skipSSL: boolean;
  ipFamily: 'IPv4' | 'IPv6';
  deadline: number;
  signal: AbortSignal;
  guard?: TargetGuard;
}

/** What URL and API checks set alike: their transport options, with the spec's defaults, and the run's limits. */
export function transportOf(r: { followRedirects?: boolean; skipSSL?: boolean; ipFamily?: 'IPv4' | 'IPv6' }, ctx: RunContext): Transport {
  return {
    followRedirects: r.followRedirects ?? true,
    skipSSL: r.skipSSL ?? false,
    ipFamily: r.ipFamily ?? 'IPv4',
    deadline: ctx.deadline,
    signal: ctx.signal,
    guard: ctx.guard,
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

async function once(req: HttpRequest, url: string, method: string, body: string | null, runStart: number): Promise<HttpOutcome> {
  const { deadline, signal } = req.transport;
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new HttpError(`unsupported protocol ${target.protocol}`, 'request', {});
  const family = req.transport.ipFamily === 'IPv6' ? 6 : 4;
  const start = performance.now();
  const conn = newConnection(start);
  const clock = new ExchangeClock();
  const client = new Client(target.origin, {
    pipelining: 1,
    // undici's own header and body timers are off: the run's deadline (armDeadline below) covers
    // every phase, and each of them would set and clear a timer per run.
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: connectorFor(conn, {
      family,
      proxyUrl: req.proxyUrl,
      skipSSL: req.transport.skipSSL,
      guard: req.transport.guard,
      onSocket: (sock, plain) => clock.watch(sock, plain),
    }),
  } as unknown as ConstructorParameters<typeof Client>[1]);

  const disarm = armDeadline(deadline, signal, () => client.destroy(new RunTimeoutError(), noop));
  let headAt = 0;
  let clean = false;
  try {
    const res = await exchange(
      client,
      {
        origin: target.origin,
        path: target.pathname + target.search,
        method: method as Dispatcher.HttpMethod,
        headers: req.headers,
        body: body ?? undefined,
      },
      req.keepBodyBytes,
      () => {
        headAt = performance.now();
        conn.phase = 'download';
      },
      () => {
        // The connection has served its one exchange. Closing it here, with one shared error,
        // spares undici building (and Node formatting) an error of its own for every run.
        clock.finish(conn.socket, EXCHANGE_DONE);
        // When the server said `Connection: close`, undici goes on to build an error of its own
        // ('reset') for the socket just closed, and nothing reads it. Its stack trace is most of
        // its cost (~10 µs a run here, 2-5 % of a URL check), so traces are off until this
        // exchange's own close callbacks have run (errors built there are dropped too).
        quietStackTraces();
      },
    );
    const { response, end } = clock.responseSpan(conn.connectAt, headAt);
    clean = true;
    return {
      url,
      status: res.status,
      statusText: STATUS_CODES[res.status] ?? '',
      headers: flatHeaders(res.headers),
      body: res.body,
      bodyBytes: res.bodyBytes,
      redirects: 0,
      remoteAddress: conn.remoteAddress,
      tls: conn.tls,
      ...phasesOf(conn, { start, runStart, sent: clock.sent, response, end }),
    };
  } catch (err) {
    throw failureOf(err as NodeJS.ErrnoException, conn, { url, target, family, runStart, deadline, signal });
  } finally {
    clock.wire?.stop();
    disarm();
    // After a clean exchange the client is destroyed with one shared error: undici would
    // otherwise build a fresh one (and Node format its stack) for every run.
    if (clean) client.destroy(EXCHANGE_DONE, noop);
    else client.destroy(noop);
  }
}

function flatHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const k in raw) {
    const v = raw[k];
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return headers;
}

/** Why a run got no response, in the words its result shows. */
function failureOf(
  e: NodeJS.ErrnoException,
  conn: Connection,
  o: { url: string; target: URL; family: 4 | 6; runStart: number; deadline: number; signal: AbortSignal },
): HttpError {
  const partial: Partial<HttpOutcome> = { url: o.url, tls: conn.tls, remoteAddress: conn.remoteAddress };
  if (e instanceof RunTimeoutError || o.signal.aborted || Date.now() >= o.deadline) {
    const waited = Math.round(performance.now() - o.runStart);
    const phase = conn.phase === 'dns' ? 'DNS' : conn.phase;
    return new HttpError(`Timed out after ${waited} ms while waiting for ${phase} from ${o.target.host}`, conn.phase, partial);
  }
  if (e instanceof RunError) return new HttpError(e.message, conn.phase, partial);
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN' || e.code === 'ENODATA') {
    return new HttpError(`DNS lookup of ${o.target.hostname} failed (${e.code}) for IPv${o.family}`, 'dns', partial);
  }
  return new HttpError(`${e.code ?? e.name}: ${e.message}`, conn.phase, partial);
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
