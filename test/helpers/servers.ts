// Local target servers on loopback, started on port 0 and closed by the test that made them.

import net from 'node:net';

export interface TcpTarget {
  port: number;
  host: string;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/** Answers each chunk with `reply(chunk)` after `delayMs`, then keeps or closes the connection. */
export function tcpServer(
  opts: { host?: string; delayMs?: number; reply?: (data: string) => string; closeAfterReply?: boolean; banner?: string } = {},
): Promise<TcpTarget> {
  const host = opts.host ?? '127.0.0.1';
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((s) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    if (opts.banner) s.write(opts.banner);
    s.on('data', (d) => {
      setTimeout(() => {
        if (s.destroyed) return;
        s.write(opts.reply ? opts.reply(d.toString()) : d);
        if (opts.closeAfterReply) s.end();
      }, opts.delayMs ?? 0);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      resolve({
        port: (server.address() as net.AddressInfo).port,
        host,
        get connections() {
          return connections;
        },
        close: () =>
          new Promise<void>((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}

/** A port with nothing listening: bound, noted, released. */
export async function closedPort(): Promise<number> {
  const t = await tcpServer();
  await t.close();
  return t.port;
}
