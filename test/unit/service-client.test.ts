// The agent's protocol client against a real local HTTP server: what the agent's loop relies on
// when the service refuses, answers, or the agent gives up on a long-polling lease.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ProtocolError, ServiceClient } from '../../src/agent/client.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function service(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the agent protocol client', () => {
  it('sends the key as a bearer token and the body as JSON, and reads the answer', async () => {
    const seen: { auth?: string; body: unknown }[] = [];
    const url = await service((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ auth: req.headers.authorization, body: JSON.parse(body) });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ accepted: ['job-1'] }));
      });
    });
    const client = new ServiceClient(url, 'pl_secret', 'agent-1');
    expect(await client.deliver([{ jobId: 'job-1' } as never])).toEqual(['job-1']);
    expect(seen).toEqual([{ auth: 'Bearer pl_secret', body: { agentId: 'agent-1', results: [{ jobId: 'job-1' }] } }]);
    await client.close();
  });

  it("turns a refusal into a ProtocolError with the service's status and message", async () => {
    const url = await service((_req, res) => {
      res.writeHead(409, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ statusCode: 409, error: 'Conflict', message: 'Unknown agent: register first' }));
    });
    const client = new ServiceClient(url, 'pl_secret', 'agent-1');
    const err = await client.lease(1, 0, 0, [], []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect(err).toMatchObject({ status: 409, message: 'Unknown agent: register first' });
    await client.close();
  });

  it('gives up a waiting lease with the reason it was aborted for, and closes the connection', async () => {
    let closed!: () => void;
    const gone = new Promise<void>((r) => (closed = r));
    let arrived!: () => void;
    const waiting = new Promise<void>((r) => (arrived = r));
    // A long-polling service that never answers.
    const url = await service((req) => {
      req.resume();
      req.socket.on('close', closed);
      arrived();
    });
    const client = new ServiceClient(url, 'pl_secret', 'agent-1');
    const stop = new AbortController();
    const lease = client.lease(1, 0, 60_000, [], [], stop.signal);
    await waiting;
    const reason = new Error('agent stopping');
    stop.abort(reason);
    await expect(lease).rejects.toBe(reason);
    await gone;
    await client.close();
  });
});
