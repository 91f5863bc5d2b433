// The agent's side of the job protocol (docs/agent-protocol.md), over Node's own HTTP client.
// HTTPS_PROXY / HTTP_PROXY / NO_PROXY apply to this connection (through undici's proxy agent,
// loaded only when a proxy is set); NODE_EXTRA_CA_CERTS is read by Node itself at start.

import fs from 'node:fs';
import type { Agent as HttpAgent } from 'node:http';
import { Readable, Transform, pipeline } from 'node:stream';
import { releaseEvery } from '../stream-memory.js';
import type { Job, RunResult } from '../domain/run.js';
import type { ArtifactLink } from '../checks/types.js';

export class ProtocolError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface Registration {
  protocolVersion: number;
  leaseSeconds: number;
  pollSeconds: number;
  location: { privateLocationId?: string; slugName?: string; dataCenters?: string[] };
}

interface Answer {
  statusCode: number;
  text: string;
}

/** One POST to the service and its whole answer; stallMs: how long the connection may be silent. */
interface Exchange {
  post(url: URL, headers: Record<string, string>, body: string | Readable, signal?: AbortSignal, stallMs?: number): Promise<Answer>;
  close(): Promise<void>;
}

/**
 * The proxy the environment names for the service's URL, the way undici's EnvHttpProxyAgent
 * reads it (NO_PROXY is left to that agent).
 */
function proxyFor(url: URL, env: NodeJS.ProcessEnv): string | undefined {
  const http = env.http_proxy ?? env.HTTP_PROXY;
  return url.protocol === 'https:' ? (env.https_proxy ?? env.HTTPS_PROXY ?? http) : http;
}

/**
 * Node's http or https module with a keep-alive agent. undici's parser is WebAssembly: compiling
 * and keeping it cost an idle agent about 3 MB of resident memory, Node's built-in parser none.
 */
async function nodeExchange(url: URL): Promise<Exchange> {
  const mod = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const agent: HttpAgent = new mod.Agent({ keepAlive: true, maxSockets: 8 });
  return {
    post: (target, headers, body, signal, stallMs) =>
      new Promise<Answer>((resolve, reject) => {
        const req = mod.request(target, { method: 'POST', agent, headers, signal, timeout: stallMs });
        req.on('timeout', () => req.destroy(new ProtocolError(0, `the service went silent for ${(stallMs ?? 0) / 1000} s`)));
        // An abort rejects with the signal's reason, as the caller gave it.
        req.on('error', (err) => reject(signal?.aborted ? signal.reason : err));
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, text }));
          res.on('error', reject);
        });
        if (typeof body === 'string') req.end(body);
        else pipeline(body, req, () => {}); // an error surfaces on req
      }),
    close: async () => agent.destroy(),
  };
}

async function proxiedExchange(): Promise<Exchange> {
  const { EnvHttpProxyAgent, requestOn } = await import('../undici-lite.js');
  const dispatcher = new EnvHttpProxyAgent({ keepAliveTimeout: 60_000, headersTimeout: 0, bodyTimeout: 0, connections: 8 });
  return {
    async post(target, headers, body, signal, stallMs) {
      const res = await requestOn(dispatcher, {
        origin: target.origin,
        path: target.pathname + target.search,
        method: 'POST',
        headers,
        body,
        signal,
        ...(stallMs ? { headersTimeout: stallMs, bodyTimeout: stallMs } : {}),
      });
      return { statusCode: res.statusCode, text: await res.body.text() };
    },
    close: () => dispatcher.close(),
  };
}

/**
 * How long any protocol request may take in all. One timer per request, not the connection's
 * stall timeouts: undici's tick every half second while a request is open, and a lease is open
 * (long-polling) nearly all the time, so they would wake an idle agent twice a second.
 */
const REQUEST_DEADLINE_MS = 180_000;

export class ServiceClient {
  private exchange: Promise<Exchange>;

  constructor(
    private baseUrl: string,
    private key: string,
    private agentId: string,
  ) {
    const url = new URL(baseUrl);
    this.exchange = proxyFor(url, process.env) ? proxiedExchange() : nodeExchange(url);
  }

  register(info: { version: string; profile: string; runtimes: string[]; concurrency: number }): Promise<Registration> {
    return this.post('/agent/v1/register', { agentId: this.agentId, ...info });
  }

  /** Leases jobs; results given along are stored by the service first (one request for both). */
  async lease(
    max: number,
    maxBrowser: number,
    waitMs: number,
    running: string[],
    results: RunResult[],
    signal?: AbortSignal,
  ): Promise<Job[]> {
    const body = { agentId: this.agentId, max, maxBrowser, waitMs, running, ...(results.length ? { results } : {}) };
    return (await this.post<{ jobs: Job[] }>('/agent/v1/jobs/lease', body, signal)).jobs;
  }

  /** Streams a file up; 413 (too large) comes back as an error value, not a throw. */
  async uploadArtifact(jobId: string, file: string, name: string, contentType: string): Promise<ArtifactLink | { error: string }> {
    const size = (await fs.promises.stat(file)).size;
    const release = releaseEvery();
    const q = new URLSearchParams({ agentId: this.agentId, jobId, name, type: contentType });
    const exchange = await this.exchange;
    const res = await exchange.post(
      new URL(`${this.baseUrl}/agent/v1/artifacts?${q}`),
      { authorization: `Bearer ${this.key}`, 'content-type': 'application/octet-stream', 'content-length': String(size) },
      // pipeline(), so the file is closed however the request ends.
      pipeline(
        fs.createReadStream(file),
        new Transform({
          transform(chunk: Buffer, _e, done) {
            release(chunk.length);
            done(null, chunk);
          },
        }),
        () => {},
      ),
      undefined,
      // Uploads are rare and may be long: a stall, not the total, is what ends one.
      REQUEST_DEADLINE_MS,
    );
    if (res.statusCode === 413) return { error: `artifact too large (${size} bytes; the service takes at most 150 MB)` };
    if (res.statusCode >= 300) return { error: `upload refused (${res.statusCode}): ${res.text.slice(0, 200)}` };
    return JSON.parse(res.text) as ArtifactLink;
  }

  async deliver(results: RunResult[]): Promise<string[]> {
    return (await this.post<{ accepted: string[] }>('/agent/v1/results', { agentId: this.agentId, results })).accepted;
  }

  async deregister(release: string[]): Promise<void> {
    await this.post('/agent/v1/deregister', { agentId: this.agentId, release }, AbortSignal.timeout(3000));
  }

  async events(events: Record<string, unknown>[]): Promise<void> {
    await this.post('/agent/v1/events', { agentId: this.agentId, events }, AbortSignal.timeout(5000));
  }

  async close(): Promise<void> {
    await (await this.exchange).close();
  }

  private async post<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    const exchange = await this.exchange;
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new ProtocolError(0, `no answer from the service within ${REQUEST_DEADLINE_MS / 1000} s`)),
      REQUEST_DEADLINE_MS,
    );
    const cancel = () => deadline.abort(signal!.reason);
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      const text = JSON.stringify(body);
      const res = await exchange.post(
        new URL(this.baseUrl + path),
        { authorization: `Bearer ${this.key}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) },
        text,
        signal?.aborted ? signal : deadline.signal,
      );
      return answer<T>(res);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
    }
  }
}

function answer<T>(res: Answer): T {
  if (res.statusCode >= 300) {
    let message = res.text.slice(0, 300);
    try {
      message = JSON.parse(res.text).message ?? message;
    } catch {
      /* not JSON */
    }
    throw new ProtocolError(res.statusCode, message);
  }
  return JSON.parse(res.text) as T;
}
