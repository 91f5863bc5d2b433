// A target for the timing-error benchmark, in its own process so the measuring side's load does
// not bend its delays: waits 20 ms before the first byte and 20 ms before the rest of the body.
// Timers fire late by their own jitter, so it also records the delays it really applied (per
// request path, from the parsed request) and hands them over when asked: the error measured is
// the runner's, plus the server's own read and parse time, which counts against the runner.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const applied = new Map<string, { firstByte: number; download: number }>();

const server = http.createServer((req, res) => {
  const t0 = performance.now();
  setTimeout(() => {
    const t1 = performance.now();
    res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
    res.write('o');
    setTimeout(() => {
      res.end('k');
      applied.set(req.url ?? '/', { firstByte: t1 - t0, download: performance.now() - t1 });
    }, 20);
  }, 20);
});
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
process.on('message', (m) => {
  if (m === 'applied') process.send!({ applied: Object.fromEntries(applied) });
});
