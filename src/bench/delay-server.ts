// A target for the timing-error benchmark, in its own process so the measuring side's load does
// not bend its delays: waits 20 ms before the first byte and 20 ms before the rest of the body.
// Timers fire late by their own jitter, and the request reaches JavaScript later than it reached
// the socket, so it records the delays it really applied, on the wire: from the request's arrival
// on its socket (noted by the addon's watcher thread, src/native/arrivals.c, when built) to the
// first byte's write, and from there to the last. It hands them over when asked.
import http from 'node:http';
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import { socketArrivals, type Arrivals } from '../checks/arrivals.js';

const applied = new Map<string, { firstByte: number; download: number }>();
const watched = new WeakMap<net.Socket, Arrivals | null>();

const server = http.createServer((req, res) => {
  const onWire = watched.get(req.socket);
  onWire?.stop();
  const t0 = Math.min(performance.now(), onWire?.first() ?? Infinity);
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
    res.write('o');
    const t1 = performance.now();
    setTimeout(() => {
      res.end('k');
      applied.set(req.url ?? '/', { firstByte: t1 - t0, download: performance.now() - t1 });
    }, 20);
  }, 20);
});
server.on('connection', (sock: net.Socket) => watched.set(sock, socketArrivals(sock)));
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
process.on('message', (m) => {
  if (m === 'applied') process.send!({ applied: Object.fromEntries(applied) });
});
