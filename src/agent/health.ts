// Health and metrics server of the agent: plain node:http, so the agent carries no web framework.

import http from 'node:http';
import type { Registry } from 'prom-client';

export interface HealthSource {
  ready(): boolean;
  health(): Record<string, unknown>;
  registry: Registry;
}

export function startHealthServer(src: HealthSource, port: number, host: string | undefined): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'Method Not Allowed');
    switch (path) {
      case '/-/liveness':
        return send(200, 'OK');
      case '/-/readiness':
        return src.ready() ? send(200, 'OK') : send(503, 'Service Unavailable');
      case '/health':
        return send(200, JSON.stringify(src.health()), 'application/json');
      case '/metrics':
        src.registry.metrics().then(
          (text) => send(200, text, src.registry.contentType),
          () => send(500, 'metrics unavailable'),
        );
        return;
      default:
        return send(404, 'Not Found');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
