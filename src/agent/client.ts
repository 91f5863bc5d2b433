// The agent's side of the job protocol (docs/agent-protocol.md), over undici.
// HTTPS_PROXY / HTTP_PROXY / NO_PROXY apply to this connection; NODE_EXTRA_CA_CERTS is read by
// Node itself at start.

import type { Dispatcher } from 'undici';
import { EnvHttpProxyAgent, requestOn } from '../undici-lite.js';
import fs from 'node:fs';
import { Transform, pipeline } from 'node:stream';
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

/**
 * How long any protocol request may take in all. One native timer per request: undici's own
 * header and body timeouts tick every half second while a request is open, and a lease is
 * open (long-polling) nearly all the time, so they would wake an idle agent twice a second.
 */
const REQUEST_DEADLINE_MS = 180_000;

export class ServiceClient {
  private dispatcher: Dispatcher;

  constructor(
    private baseUrl: string,
    private key: string,
    private agentId: string,
  ) {
    this.dispatcher = new EnvHttpProxyAgent({ keepAliveTimeout: 60_000, headersTimeout: 0, bodyTimeout: 0, connections: 8 });
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
    const url = new URL(`${this.baseUrl}/agent/v1/artifacts?${q}`);
    const res = await requestOn(this.dispatcher, {
      origin: url.origin,
      path: url.pathname + url.search,
      method: 'POST',
      headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/octet-stream', 'content-length': String(size) },
      // Uploads are rare and may be long: a stall, not the total, is what ends one.
      headersTimeout: REQUEST_DEADLINE_MS,
      bodyTimeout: REQUEST_DEADLINE_MS,
      // pipeline(), so the file is closed however the request ends.
      body: pipeline(
        fs.createReadStream(file),
        new Transform({
          transform(chunk: Buffer, _e, done) {
            release(chunk.length);
            done(null, chunk);
          },
        }),
        () => {},
      ),
    });
    const text = await res.body.text();
    if (res.statusCode === 413) return { error: `artifact too large (${size} bytes; the service takes at most 150 MB)` };
    if (res.statusCode >= 300) return { error: `upload refused (${res.statusCode}): ${text.slice(0, 200)}` };
    return JSON.parse(text) as ArtifactLink;
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

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  private async post<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    const url = new URL(this.baseUrl + path);
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new ProtocolError(0, `no answer from the service within ${REQUEST_DEADLINE_MS / 1000} s`)),
      REQUEST_DEADLINE_MS,
    );
    const cancel = () => deadline.abort(signal!.reason);
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      const res = await requestOn(this.dispatcher, {
        origin: url.origin,
        path: url.pathname,
        method: 'POST',
        headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: signal?.aborted ? signal : deadline.signal,
      });
      return await this.answer<T>(res);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
    }
  }

  private async answer<T>(res: Dispatcher.ResponseData): Promise<T> {
    const text = await res.body.text();
    if (res.statusCode >= 300) {
      let message = text.slice(0, 300);
      try {
        message = JSON.parse(text).message ?? message;
      } catch {
        /* not JSON */
      }
      throw new ProtocolError(res.statusCode, message);
    }
    return JSON.parse(text) as T;
  }
}
