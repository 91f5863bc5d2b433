// The connection of one URL or API run, made by hand so each phase is a clock reading at its
// event: DNS lookup, TCP connect, the proxy's CONNECT tunnel (private locations with a proxyUrl),
// and the TLS handshake. undici calls the connector this returns and speaks HTTP over its socket.

import type { TargetGuard } from '../domain/target-guard.js';
import dns from 'node:dns';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import { CertificateRejectedError, ProxyTunnelError, TargetRefusedError } from './errors.js';

export type HttpPhase = 'dns' | 'tcp' | 'proxy' | 'tls' | 'firstByte' | 'download';

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

/** What is known of the connection as it is made; read after the run, whichever way it ended. */
export interface Connection {
  /** The phase under way: a timeout or an error names it. */
  phase: HttpPhase;
  /** performance.now() readings: lookup started, lookup done, connected, TLS done. */
  socketAt: number;
  lookupAt: number;
  connectAt: number;
  secureConnectAt: number | null;
  remoteAddress: string | null;
  /** Kept even when verification fails, so the result can show the certificate. */
  tls: TlsFacts | null;
  socket: net.Socket | null;
}

export function newConnection(now: number): Connection {
  return {
    phase: 'dns',
    socketAt: now,
    lookupAt: now,
    connectAt: now,
    secureConnectAt: null,
    remoteAddress: null,
    tls: null,
    socket: null,
  };
}

export interface ConnectOptions {
  family: 4 | 6;
  proxyUrl?: string | null;
  skipSSL: boolean;
  /** Refuses private addresses (each hop of a redirect connects anew, so each is checked). */
  guard?: TargetGuard;
  /** Called with the socket HTTP will use, just before undici gets it; `plain`: not TLS. */
  onSocket(sock: net.Socket, plain: boolean): void;
}

type UndiciConnectOptions = { hostname: string; port: string | number; protocol: string };
type ConnectCallback = (err: Error | null, socket: net.Socket | null) => void;

/** undici's `connect` option for one run; it records what happens in `conn`. */
export function connectorFor(conn: Connection, o: ConnectOptions) {
  return (opts: UndiciConnectOptions, cb: ConnectCallback): void => {
    const host = opts.hostname.replace(/^\[|\]$/g, '');
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
    const proxy = o.proxyUrl ? new URL(o.proxyUrl) : null;

    const ready = (sock: net.Socket, plain: boolean) => {
      conn.phase = 'firstByte';
      o.onSocket(sock, plain);
      conn.socket = sock;
      cb(null, sock);
    };

    const handshake = (raw: net.Socket) => {
      conn.connectAt = performance.now();
      if (opts.protocol !== 'https:') {
        raw.removeAllListeners('error');
        return ready(raw, true);
      }
      conn.phase = 'tls';
      // Verification is judged below, so the certificate's facts are kept when it fails.
      const sock = tls.connect({
        socket: raw,
        servername: net.isIP(host) ? undefined : host,
        rejectUnauthorized: false,
        ALPNProtocols: ['http/1.1'],
      });
      sock.once('error', (e) => cb(e, null));
      sock.once('secureConnect', () => {
        conn.secureConnectAt = performance.now();
        conn.tls = tlsFactsOf(sock);
        sock.removeAllListeners('error');
        raw.removeAllListeners('error');
        if (!o.skipSSL && !sock.authorized) {
          sock.destroy();
          return cb(new CertificateRejectedError(describeTlsError(String(sock.authorizationError))), null);
        }
        ready(sock, false);
      });
    };

    const tunnel = (raw: net.Socket) => {
      conn.phase = 'proxy';
      const proxyAuth = proxy!.username
        ? `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(proxy!.username)}:${decodeURIComponent(proxy!.password)}`).toString('base64')}\r\n`
        : '';
      const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
      raw.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${proxyAuth}\r\n`);
      let head = '';
      const onData = (d: Buffer) => {
        head += d.toString('latin1');
        if (!head.includes('\r\n\r\n')) return;
        raw.off('data', onData);
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
        if (status !== 200) return cb(new ProxyTunnelError(authority, status), null);
        handshake(raw);
      };
      raw.on('data', onData);
    };

    const afterLookup = (err: Error | null, address?: string) => {
      conn.lookupAt = performance.now();
      if (err) return cb(err, null);
      // Through a proxy the proxy resolves the target: it is the location operator's to police.
      if (!proxy && o.guard?.refuses(address!)) return cb(new TargetRefusedError(host, address!), null);
      conn.phase = 'tcp';
      conn.remoteAddress = address!;
      const raw = net.connect({
        host: address!,
        port: proxy ? Number(proxy.port) || (proxy.protocol === 'https:' ? 443 : 80) : port,
        family: o.family,
      });
      raw.setNoDelay(true);
      raw.once('error', (e) => cb(e, null));
      raw.once('connect', () => (proxy ? tunnel(raw) : handshake(raw)));
    };

    const lookupHost = proxy ? proxy.hostname.replace(/^\[|\]$/g, '') : host;
    conn.socketAt = performance.now();
    if (net.isIP(lookupHost)) afterLookup(null, lookupHost);
    else dns.lookup(lookupHost, { family: o.family }, (err, address) => afterLookup(err, address));
  };
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
