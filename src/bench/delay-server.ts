// A target for the timing-error benchmark, in its own process so the measuring side's load does
// not bend its delays: waits 20 ms before the first byte and 20 ms before the rest of the body.
import http from 'node:http';

const server = http.createServer((_req, res) => {
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
    res.write('o');
    setTimeout(() => res.end('k'), 20);
  }, 20);
});
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
