// What a self-hoster meets first: `outpost start` (service and built-in agent in one process)
// on an empty data directory. Time to "running", check creation through the API, and the
// whole process tree's memory once 1,000 checks are stored and it has settled.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { launch, processTree, rssMb, sleep } from './procs.js';

const CHECKS = Number(process.env.BENCH_START_CHECKS ?? 1000);
const SETTLE_S = Number(process.env.BENCH_START_SETTLE_SECONDS ?? 15);

export interface StartFigures {
  storage: string;
  firstStartSeconds: number;
  checkCreatesPerSecond: number;
  idleRssMb: number;
  restartSeconds: number;
}

export async function benchStart(say: (s: string) => void, env: Record<string, string> = {}): Promise<StartFigures> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-bench-start-'));
  const apiKey = 'bench-start-key-0123456789';
  // No request limit: check creation is measured at full speed.
  const procEnv = {
    PORT: '0',
    OUTPOST_DATA_DIR: dataDir,
    OUTPOST_API_KEY: apiKey,
    LOG_LEVEL: 'WARN',
    LOG_FORMAT: 'json',
    OUTPOST_API_RATE_LIMIT_PER_SECOND: '0',
    ...env,
  };
  const start = async () => {
    const t0 = process.hrtime.bigint();
    const svc = launch(['start'], procEnv);
    const line = await svc.waitFor((l) => l.includes('Base URL:'));
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    return { svc, seconds, baseUrl: line.split('Base URL:')[1].trim() };
  };
  const first = await start();
  let svc = first.svc;
  try {
    const t0 = Date.now();
    let i = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (i < CHECKS) {
          const k = i++;
          const res = await request(`${first.baseUrl}/v1/checks/tcp`, {
            method: 'POST',
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
            // Hourly checks against a closed local port: stored and scheduled, rarely running.
            body: JSON.stringify({
              name: `start ${k}`,
              frequency: 60,
              locations: ['us-east-1'],
              request: { hostname: '127.0.0.1', port: 9 },
            }),
          });
          await res.body.dump();
          if (res.statusCode !== 201) throw new Error(`create check: ${res.statusCode}`);
        }
      }),
    );
    const checkCreatesPerSecond = CHECKS / ((Date.now() - t0) / 1000);
    await svc.stop();
    const again = await start();
    svc = again.svc;
    await sleep(SETTLE_S * 1000);
    const idleRssMb = processTree(svc.child.pid!).reduce((sum, pid) => sum + rssMb(pid), 0);
    const figures = {
      storage: env.DATABASE_URL ? 'postgres' : 'embedded',
      firstStartSeconds: first.seconds,
      checkCreatesPerSecond,
      idleRssMb,
      restartSeconds: again.seconds,
    };
    say(
      `outpost start (${figures.storage}): first start ${first.seconds.toFixed(2)} s, ${checkCreatesPerSecond.toFixed(0)} check creates/s, ` +
        `idle RSS with ${CHECKS} checks ${idleRssMb.toFixed(0)} MB, restart ${again.seconds.toFixed(2)} s`,
    );
    return figures;
  } finally {
    await svc.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
