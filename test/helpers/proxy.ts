// A CONNECT proxy on loopback that records what passes through it and can demand credentials.

import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface RecordingProxy {
  url: string;
  port: number;
  seen: { target: string; auth: string | undefined }[];
  close(): Promise<void>;
}

export async function recordingProxy(credentials?: { user: string; pass: string }): Promise<RecordingProxy> {
  const seen: RecordingProxy['seen'] = [];
  const expected = credentials ? `Basic ${Buffer.from(`${credentials.user}:${credentials.pass}`).toString('base64')}` : undefined;
  const sockets = new Set<net.Socket>();
  // Plain HTTP through a proxy arrives in absolute form (GET http://host/path): forward it.
  const server = http.createServer((req, res) => {
    const auth = req.headers['proxy-authorization'];
    seen.push({ target: req.url!, auth });
    if (expected && auth !== expected) return void res.writeHead(407).end();
    const { 'proxy-authorization': _a, ...headers } = req.headers;
    const upstream = http.request(req.url!, { method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode!, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req, client: net.Socket) => {
    sockets.add(client);
    const auth = req.headers['proxy-authorization'];
    seen.push({ target: req.url!, auth });
    if (expected && auth !== expected) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
      return;
    }
    const [host, port] = req.url!.replace(/^\[(.*)\]/, '$1').split(/:(?=\d+$)/);
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const userinfo = credentials ? `${credentials.user}:${credentials.pass}@` : '';
  return {
    url: `http://${userinfo}127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
