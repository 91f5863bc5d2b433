// Real service and agent processes for end-to-end tests, on the storage backend of the project.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import pg from 'pg';

const CLI = path.resolve('dist/cli.js');

export interface Proc {
  child: ChildProcess;
  logs: Record<string, any>[];
  /** Resolves with the first log line matching pred (already seen or yet to come). */
  waitLog(pred: (l: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

function launch(args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: Record<string, any>[] = [];
  const waiters: { pred: (l: Record<string, any>) => boolean; resolve: (l: Record<string, any>) => void }[] = [];
  let buf = '';
  const onData = (d: Buffer) => {
    buf += d.toString('utf8');
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (process.env.OUTPOST_TEST_VERBOSE) process.stderr.write(`[${args[0]}] ${line}\n`);
      if (!line.startsWith('{')) continue;
      try {
        const l = JSON.parse(line);
        logs.push(l);
        for (const w of [...waiters])
          if (w.pred(l)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(l);
          }
      } catch {
        /* not a log line */
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    child,
    logs,
    exited,
    waitLog(pred, timeoutMs = 30_000) {
      const hit = logs.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no matching log line from ${args[0]} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          pred,
          resolve: (l) => {
            clearTimeout(t);
            resolve(l);
          },
        });
        void exited.then((code) => reject(new Error(`${args[0]} exited (${code}) before the awaited log line`)));
      });
    },
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface Service {
  proc: Proc;
  baseUrl: string;
  accountId: string;
  apiKey: string;
  env: Record<string, string>;
  api<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: T; headers: Headers }>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function storageEnv(): Promise<Record<string, string>> {
  if (process.env.OUTPOST_TEST_STORAGE === 'postgres') {
    const base = inject('databaseUrl');
    const name = `t_${randomUUID().replace(/-/g, '')}`;
    const client = new pg.Client({ connectionString: `${base}/postgres` });
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    return { DATABASE_URL: `${base}/${name}`, OUTPOST_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-svc-')) };
  }
  return { OUTPOST_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-svc-')) };
}

export async function startService(extra: Record<string, string> = {}, command: 'service' | 'start' = 'service'): Promise<Service> {
  const apiKey = `test-${randomUUID()}`;
  const env: Record<string, string> = { PORT: '0', OUTPOST_API_KEY: apiKey, LOG_LEVEL: 'INFO', ...(await storageEnv()), ...extra };
  const svc: Service = {
    proc: launch([command], env),
    baseUrl: '',
    accountId: '',
    apiKey,
    env,
    async api(method, p, body, headers = {}) {
      const res = await fetch(svc.baseUrl + p, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: any = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        /* not JSON */
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async restart() {
      await svc.proc.kill('SIGTERM');
      // Same port, so agents find the service where they left it.
      env.PORT = String(new URL(svc.baseUrl).port);
      svc.proc = launch([command], env);
      await ready();
    },
    async stop() {
      await svc.proc.kill('SIGTERM');
    },
  };
  const ready = async () => {
    const l = await svc.proc.waitLog((x) => x.msg === 'service listening', 60_000);
    svc.baseUrl = l.baseUrl;
    svc.accountId = l.accountId;
  };
  await ready();
  return svc;
}

export interface AgentProc {
  proc: Proc;
  healthUrl: string;
  spoolDir: string;
}

export async function startAgent(svc: Service, key: string, extra: Record<string, string> = {}): Promise<AgentProc> {
  const spoolDir = extra.OUTPOST_SPOOL_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-spool-'));
  const proc = launch(['agent'], {
    API_KEY: key,
    OUTPOST_URL: svc.baseUrl,
    AGENT_HEALTH_PORT: '0',
    AGENT_HEALTH_HOST: '127.0.0.1',
    OUTPOST_SPOOL_DIR: spoolDir,
    LOG_LEVEL: 'DEBUG',
    ...extra,
  });
  const l = await proc.waitLog((x) => x.msg === 'health server listening');
  return { proc, healthUrl: `http://127.0.0.1:${l.port}`, spoolDir };
}

/** Polls fn until it returns a truthy value; for state that only the service can report. */
export async function eventually<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
}

export async function createPrivateLocation(svc: Service, slugName = `pl-${randomUUID().slice(0, 8)}`) {
  const res = await svc.api('POST', '/v1/private-locations', { name: slugName, slugName });
  if (res.status !== 201) throw new Error(`create private location: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id as string, slugName, key: res.body.keys[0].rawKey as string, keyId: res.body.keys[0].id as string };
}

/** Runs a check now through a check session and returns the session once it is complete. */
export async function runNow(svc: Service, checkId: string) {
  const trig = await svc.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [checkId] } });
  if (trig.status !== 201) throw new Error(`trigger ${checkId}: ${trig.status} ${JSON.stringify(trig.body)}`);
  const done = await svc.api('GET', `/v2/check-sessions/${trig.body.sessions[0].checkSessionId}/completion?maxWaitSeconds=30`);
  if (done.status !== 200) throw new Error(`session of ${checkId}: ${done.status} ${JSON.stringify(done.body)}`);
  return done.body;
}
