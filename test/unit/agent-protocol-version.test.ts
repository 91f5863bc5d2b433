// A real agent process against a local HTTP server that answers registration as a service of
// another protocol version would: the agent must stop and say why, not retry for ever.

import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let server: http.Server;
let port = 0;
const registrations: unknown[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      if (req.url !== '/agent/v1/register') {
        res.writeHead(404).end();
        return;
      }
      registrations.push(JSON.parse(body));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ protocolVersion: 2, agentId: 'a', location: {}, leaseSeconds: 300, pollSeconds: 25 }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('agent protocol version', () => {
  it('stops with exit code 1 and a clear message when the service speaks another version', async () => {
    const child = spawn(process.execPath, [path.resolve('dist/cli.js'), 'agent'], {
      env: {
        PATH: process.env.PATH ?? '',
        API_KEY: 'pl_key',
        OUTPOST_URL: `http://127.0.0.1:${port}`,
        AGENT_HEALTH_PORT: '0',
        LOG_FORMAT: 'json',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(1);
    expect(registrations).toHaveLength(1);
    const lines = out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const why = lines.find((l) => l.state === 'incompatible');
    expect(why?.msg).toMatch(/speaks agent protocol version 2; this agent .* speaks version 1/);
  });
});
