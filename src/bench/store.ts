// npm run bench, store: what storing a result costs the embedded store alone, in-process, with
// 10,000 checks whose results arrive in batches of 40 (as a backlog drain delivers them) in no
// particular order of check: CPU seconds per 1,000 results and the bytes written for each,
// round after round as the tables grow. Then, apart (its 1-ms timer costs CPU), the event loop's
// longest stall while results are stored: the longest any request would have waited.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openStore } from '../service/store/index.js';
import type { Delivered } from '../service/store/results.js';

const CHECKS = 10_000;
const BATCH = Number(process.env.BENCH_STORE_BATCH ?? 40);
const ROUNDS = 6;
/** Rounds watched for stalls: a checkpoint comes every 40 MB of log, about twice a round. */
const STALL_ROUNDS = 3;

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
    /** One result of every check, in batches, in no particular order of check. */
    const round = async () => {
      const order = checks.map((c) => ({ c, k: Math.random() })).sort((a, b) => a.k - b.k);
      for (let i = 0; i < order.length; i += BATCH)
        await store.results.store(
          order.slice(i, i + BATCH).map((o) => delivered(o.c)),
          [],
        );
    };
    const rounds: { cpuSecondsPer1000: number; kbPerResult: number }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const c0 = process.cpuUsage();
      const w0 = writtenBytes();
      await round();
      const c = process.cpuUsage(c0);
      rounds.push({ cpuSecondsPer1000: (c.user + c.system) / 1e6 / (CHECKS / 1000), kbPerResult: (writtenBytes() - w0) / CHECKS / 1024 });
    }
    // The first rounds fill the tables and warm the code: the last half is the figure.
    const tail = rounds.slice(ROUNDS / 2);
    const out = {
      batch: BATCH,
      cpuSecondsPer1000: tail.reduce((s, r) => s + r.cpuSecondsPer1000, 0) / tail.length,
      kbPerResult: tail.reduce((s, r) => s + r.kbPerResult, 0) / tail.length,
      longestStallMs: 0,
    };
    const lag = monitorEventLoopDelay({ resolution: 1 });
    lag.enable();
    for (let r = 0; r < STALL_ROUNDS; r++) await round();
    lag.disable();
    out.longestStallMs = lag.max / 1e6;
    say(
      `store: ${out.cpuSecondsPer1000.toFixed(3)} CPU-s and ${out.kbPerResult.toFixed(1)} KB written per result (batches of ${BATCH}); ` +
        `longest event-loop stall ${out.longestStallMs.toFixed(1)} ms`,
    );
    return out;
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
