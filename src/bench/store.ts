// npm run bench, store: what storing a result costs the embedded store alone, in-process, with
// 10,000 checks whose results arrive in batches of 40 (as a backlog drain delivers them) in no
// particular order of check: CPU seconds per 1,000 results and the bytes written for each,
// round after round as the tables grow.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { openStore } from '../service/store/index.js';
import type { Delivered } from '../service/store/results.js';

const CHECKS = 10_000;
const BATCH = Number(process.env.BENCH_STORE_BATCH ?? 40);
const ROUNDS = 6;

const writtenBytes = () => Number(/write_bytes: (\d+)/.exec(fs.readFileSync('/proc/self/io', 'utf8'))?.[1] ?? NaN);

export async function benchStore(say: (s: string) => void) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-bench-store-'));
  const store = await openStore({ dataDir: dir });
  try {
    const checks = Array.from({ length: CHECKS }, () => randomUUID());
    let at = Date.now();
    const delivered = (checkId: string): Delivered => {
      at += 1;
      const jobId = `${at}:${checkId}:bench`;
      return {
        accountId: 'bench',
        job: {
          id: jobId,
          checkId,
          checkType: 'TCP',
          location: 'bench',
          dueAt: at,
          timeoutMs: 10_000,
          check: { name: checkId, request: {}, degradedResponseTime: null, maxResponseTime: null, shouldFail: false },
        },
        result: {
          jobId,
          checkId,
          location: 'bench',
          dueAt: at,
          startedAt: at,
          stoppedAt: at + 1,
          responseTime: 1,
          hasFailures: false,
          hasErrors: false,
          isDegraded: false,
          overMaxResponseTime: false,
          error: null,
          detail: { tcpCheckResult: { hostname: '127.0.0.1', port: 7, ip: '127.0.0.1' } },
        },
      };
    };
    const rounds: { cpuSecondsPer1000: number; kbPerResult: number }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order = checks.map((c) => ({ c, k: Math.random() })).sort((a, b) => a.k - b.k);
      const c0 = process.cpuUsage();
      const w0 = writtenBytes();
      for (let i = 0; i < order.length; i += BATCH)
        await store.results.store(
          order.slice(i, i + BATCH).map((o) => delivered(o.c)),
          [],
        );
      const c = process.cpuUsage(c0);
      rounds.push({ cpuSecondsPer1000: (c.user + c.system) / 1e6 / (CHECKS / 1000), kbPerResult: (writtenBytes() - w0) / CHECKS / 1024 });
    }
    // The first rounds fill the tables and warm the code: the last half is the figure.
    const tail = rounds.slice(ROUNDS / 2);
    const out = {
      batch: BATCH,
      cpuSecondsPer1000: tail.reduce((s, r) => s + r.cpuSecondsPer1000, 0) / tail.length,
      kbPerResult: tail.reduce((s, r) => s + r.kbPerResult, 0) / tail.length,
    };
    say(`store: ${out.cpuSecondsPer1000.toFixed(3)} CPU-s and ${out.kbPerResult.toFixed(1)} KB written per result (batches of ${BATCH})`);
    return out;
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
