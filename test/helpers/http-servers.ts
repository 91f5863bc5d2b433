// HTTP and HTTPS (self-signed) targets on loopback with slow, redirecting, failing and JSON endpoints.

import http from 'node:http';
import https from 'node:https';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';

export interface HttpTarget {
  url: string;
  /** Request headers seen, per path. */
  seen: { path: string; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

function handler(seen: HttpTarget['seen']): http.RequestListener {
  return (req, res) => {
    const u = new URL(req.url!, 'http://x');
    seen.push({ path: u.pathname, headers: req.headers });
    const wait = Number(u.searchParams.get('wait') ?? 0);
    const trickle = Number(u.searchParams.get('trickle') ?? 0);
    setTimeout(() => {
      switch (u.pathname) {
        case '/ok':
          res.writeHead(200, { 'content-type': 'text/plain' });
          if (trickle) {
            res.write('o');
            setTimeout(() => res.end('k'), trickle);
          } else res.end('ok');
          return;
        case '/json':
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ status: 'up', items: [1, 2, 3] }));
        case '/echo': {
          const chunks: Buffer[] = [];
          req.on('data', (c) => chunks.push(c));
          req.on('end', () => {
            res.writeHead(200, { 'content-type': 'application/json', 'x-request-method': req.method! });
            res.end(
              JSON.stringify({
                method: req.method,
                query: Object.fromEntries(u.searchParams),
                headers: req.headers,
                body: Buffer.concat(chunks).toString(),
              }),
            );
          });
          return;
        }
        case '/redirect':
          res.writeHead(302, { location: u.searchParams.get('to') ?? '/ok' });
          return res.end();
        case '/fail':
          res.writeHead(503, { 'content-type': 'text/plain' });
          return res.end('down');
        default:
          res.writeHead(404);
          return res.end('not found');
      }
    }, wait);
  };
}

export async function httpServer(host = '127.0.0.1'): Promise<HttpTarget> {
  const seen: HttpTarget['seen'] = [];
  const server = http.createServer(handler(seen));
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, seen, close: () => closeAll(server) };
}

let cert: { key: Buffer; cert: Buffer } | null = null;
function selfSigned() {
  if (cert) return cert;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-cert-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '30',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  cert = { key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) };
  fs.rmSync(dir, { recursive: true, force: true });
  return cert;
}

export async function httpsServer(): Promise<HttpTarget> {
  const seen: HttpTarget['seen'] = [];
  const server = https.createServer(selfSigned(), handler(seen));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `https://127.0.0.1:${port}`, seen, close: () => closeAll(server) };
}

export interface TlsFront {
  url: string;
  /** The front's self-signed certificate, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  /** Requests it forwarded, by path. */
  forwarded: string[];
  close(): Promise<void>;
}

/** HTTPS in front of a plain-HTTP origin, as a TLS-terminating reverse proxy would put it. */
export async function tlsFront(origin: string): Promise<TlsFront> {
  const pem = selfSigned();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-ca-'));
  const caFile = path.join(dir, 'ca.pem');
  fs.writeFileSync(caFile, pem.cert);
  const forwarded: string[] = [];
  const server = https.createServer(pem, (req, res) => {
    forwarded.push(new URL(req.url!, origin).pathname);
    const up = http.request(new URL(req.url!, origin), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caFile,
    forwarded,
    async close() {
      await closeAll(server);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function closeAll(server: http.Server): Promise<void> {
  return new Promise((r) => {
    server.closeAllConnections();
    server.close(() => r());
  });
}

export interface SwitchableTarget {
  url: string;
  /** While true it answers 200; else the failing status. Tests flip it. */
  healthy: boolean;
  close(): Promise<void>;
}

/** A check's target that is up or down as the test says: 200 "up", or `failStatus` "down". */
export async function switchableTarget(failStatus = 503): Promise<SwitchableTarget> {
  const server = http.createServer((_req, res) => {
    res.writeHead(target.healthy ? 200 : failStatus);
    res.end(target.healthy ? 'up' : 'down');
  });
  const target: SwitchableTarget = { url: '', healthy: true, close: () => new Promise<void>((r) => server.close(() => r())) };
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  target.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return target;
}
