// The API's answer time while checks with a backtracking regex run on the built-in agent of
// `outpost start` (one process: service, and the agent in a worker thread). Measured twice in one
// run, with those checks and without, so the machine's own noise shows beside the figure.

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { launch, percentile, sleep } from './procs.js';

const WINDOW_S = Number(process.env.BENCH_REDOS_WINDOW_SECONDS ?? 20);
const EVIL_CHECKS = 10;
const API_KEY = 'bench-redos-key-0123456789';

export interface RedosFigures {
  apiP50Ms: number;
  apiP99Ms: number;
  apiMaxMs: number;
  quietApiP99Ms: number;
  regexRunsStopped: number;
}

async function apiTimes(baseUrl: string, seconds: number): Promise<number[]> {
  const times: number[] = [];
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const t0 = performance.now();
    const res = await request(`${baseUrl}/v1/checks?limit=10`, { headers: { authorization: `Bearer ${API_KEY}` } });
    await res.body.dump();
    times.push(performance.now() - t0);
    await sleep(20);
  }
  return times.sort((a, b) => a - b);
}

export async function benchRedos(say: (s: string) => void): Promise<RedosFigures> {
  // Every answer is 31 a's and a '!': `^(a+)+$` backtracks over it for about a minute.
  const web = http.createServer((_req, res) => res.end(`${'a'.repeat(31)}!`));
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  const target = `http://127.0.0.1:${(web.address() as AddressInfo).port}/`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-bench-redos-'));
  const svc = launch(['start'], { PORT: '0', OUTPOST_DATA_DIR: dataDir, OUTPOST_API_KEY: API_KEY, LOG_LEVEL: 'WARN', LOG_FORMAT: 'json' });
  try {
    const baseUrl = (await svc.waitFor((l) => l.includes('Base URL:'))).split('Base URL:')[1]!.trim();
    const quiet = await apiTimes(baseUrl, WINDOW_S / 2);
    const ids: string[] = [];
    for (let i = 0; i < EVIL_CHECKS; i++) {
      const res = await request(`${baseUrl}/v1/checks/api`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: `redos ${i}`,
          frequency: 0,
          frequencyOffset: 10,
          locations: ['eu-west-1'],
          request: { method: 'GET', url: target, assertions: [{ source: 'TEXT_BODY', comparison: 'NOT_NULL', regex: '^(a+)+$' }] },
        }),
      });
      const body = (await res.body.json()) as { id: string };
      if (res.statusCode !== 201) throw new Error(`create check: ${res.statusCode}`);
      ids.push(body.id);
    }
    const busy = await apiTimes(baseUrl, WINDOW_S);
    let stopped = 0;
    for (const id of ids) {
      const res = await request(`${baseUrl}/v1/check-results/${id}?limit=100`, { headers: { authorization: `Bearer ${API_KEY}` } });
      stopped += ((await res.body.json()) as unknown[]).filter((r) => JSON.stringify(r).includes('took longer than')).length;
    }
    const figures = {
      apiP50Ms: percentile(busy, 50),
      apiP99Ms: percentile(busy, 99),
      apiMaxMs: busy[busy.length - 1]!,
      quietApiP99Ms: percentile(quiet, 99),
      regexRunsStopped: stopped,
    };
    say(
      `API while ${EVIL_CHECKS} backtracking-regex checks run every 10 s: p50 ${figures.apiP50Ms.toFixed(1)} ms, ` +
        `p99 ${figures.apiP99Ms.toFixed(1)} ms, max ${figures.apiMaxMs.toFixed(1)} ms (without them: p99 ${figures.quietApiP99Ms.toFixed(1)} ms); ` +
        `${stopped} regex runs stopped at the time limit`,
    );
    return figures;
  } finally {
    await svc.stop();
    web.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
