// A load generator for the API's write rates: keep-alive connections, one request in flight on
// each, answers read by Content-Length, as wrk or autocannon do. On a two-core machine a full
// HTTP client costs about as much CPU per request as the service's own work, so with it the
// figure would measure the client as much as the service.

import net from 'node:net';

/**
 * POSTs n JSON bodies to url over `connections` connections; resolves when every answer has
 * arrived, rejects at the first status outside 2xx (its body in the message).
 */
export async function postMany(
  url: string,
  headers: Record<string, string>,
  n: number,
  body: (i: number) => string,
  connections = 16,
): Promise<void> {
  const { hostname, port, pathname } = new URL(url);
  const head =
    `POST ${pathname} HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\n` +
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
  let next = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(port), hostname);
      socket.setNoDelay(true);
      let buf = Buffer.alloc(0);
      const send = () => {
        if (next >= n) return void socket.end(resolve);
        const json = body(next++);
        // One write: a request split in two waits on Nagle's algorithm for the peer's ACK.
        socket.write(`${head}content-length: ${Buffer.byteLength(json)}\r\n\r\n${json}`);
      };
      socket.on('connect', send);
      socket.on('error', reject);
      socket.on('data', (chunk) => {
        buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
        for (;;) {
          const end = buf.indexOf('\r\n\r\n');
          if (end < 0) return;
          const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
          const length = lines.find((l) => /^content-length:/i.test(l));
          if (!length) return reject(new Error(`POST ${pathname}: an answer without content-length: ${lines[0]}`));
          const total = end + 4 + Number(length.slice(15));
          if (buf.length < total) return;
          const status = Number(lines[0].split(' ')[1]);
          if (status < 200 || status >= 300) {
            socket.destroy();
            return reject(new Error(`POST ${pathname}: ${status} ${buf.subarray(end + 4, total).toString()}`));
          }
          buf = buf.subarray(total);
          send();
        }
      });
    });
  await Promise.all(Array.from({ length: connections }, one));
}
