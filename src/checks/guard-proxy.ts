// Browser traffic under the private-target guard: when an agent blocks private targets, the
// browsers of its browser, multi-step and Playwright runs send every request (plain HTTP, and
// CONNECT for TLS and WebSockets) through this proxy on 127.0.0.1, which resolves the host and
// refuses what the guard refuses, at every redirect since each is a request of its own.

import dns from 'node:dns/promises';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { TargetGuard } from '../domain/target-guard.js';

const proxies = new WeakMap<TargetGuard, Promise<string>>();

/** The proxy URL for this guard, started on first use and kept for the agent's life. */
export function guardProxyUrl(guard: TargetGuard): Promise<string> {
  let p = proxies.get(guard);
  if (!p) {
    p = start(guard);
    proxies.set(guard, p);
  }
  return p;
}

const refusal = (host: string, address: string) =>
  `Outpost refused ${host} (${address}): a loopback, link-local or private address, and this agent blocks those (OUTPOST_BLOCK_PRIVATE_TARGETS)`;

/** The address to connect to, or why not. */
async function resolveAllowed(guard: TargetGuard, host: string): Promise<{ address: string } | { refused: string }> {
  const bare = host.replace(/^\[|\]$/g, '');
  const address = net.isIP(bare) ? bare : (await dns.lookup(bare)).address;
  return guard.refuses(address) ? { refused: refusal(bare, address) } : { address };
}

async function start(guard: TargetGuard): Promise<string> {
  const server = http.createServer((req, res) => {
    // Plain HTTP: the request line carries the absolute URL.
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute URL expected');
      return;
    }
    resolveAllowed(guard, target.hostname).then(
      (r) => {
        if ('refused' in r) {
          res.writeHead(403, { 'content-type': 'text/plain' }).end(r.refused);
          return;
        }
        const upstream = http.request(
          { host: r.address, port: target.port || 80, path: target.pathname + target.search, method: req.method, headers: req.headers },
          (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        req.pipe(upstream);
      },
      () => res.writeHead(502).end(`cannot resolve ${target.hostname}`),
    );
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    client.on('error', () => {});
    const at = (req.url ?? '').lastIndexOf(':');
    const host = (req.url ?? '').slice(0, at);
    const port = Number((req.url ?? '').slice(at + 1));
    resolveAllowed(guard, host).then(
      (r) => {
        if ('refused' in r) {
          client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\n${r.refused}`);
          return;
        }
        const upstream = net.connect(port, r.address, () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on('error', () => client.destroy());
        client.on('close', () => upstream.destroy());
      },
      () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Chromium flags that send all of a browser's traffic, loopback included, through `proxyUrl`. */
export function proxyFlags(proxyUrl: string): string[] {
  return [`--proxy-server=${proxyUrl}`, '--proxy-bypass-list=<-loopback>'];
}
