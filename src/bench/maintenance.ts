// npm run bench, maintenance: what asking "does maintenance pause this run?" costs the scheduler,
// per scheduled run, with 10,000 checks and 500 windows (repeating daily, weekly and monthly in
// several time zones, a tenth of them under way), in-process: the windows under way are worked
// out once a second per account, each run then scans those few.

import { performance } from 'node:perf_hooks';
import { Maintenance } from '../service/maintenance.js';
import type { WindowRow } from '../service/store/maintenance-windows.js';

const CHECKS = 10_000;
const WINDOWS = 500;
const SIMULATED_SECONDS = 600;

export async function benchMaintenance(say: (s: string) => void) {
  const now = Date.UTC(2026, 10, 23, 12);
  const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Sydney'];
  const units = ['DAY', 'WEEK', 'MONTH'] as const;
  const rows: WindowRow[] = Array.from({ length: WINDOWS }, (_, i) => {
    // Every tenth window has an occurrence under way at `now`; the rest started at other hours.
    const start = now - 400 * 86_400_000 + (i % 10 === 0 ? -1800_000 : 3 * 3600_000);
    return {
      id: i + 1,
      account_id: 'bench',
      name: `w${i}`,
      created_at: new Date(now),
      updated_at: null,
      config: {
        name: `w${i}`,
        startsAt: start,
        endsAt: start + 3600_000,
        repeatUnit: units[i % 3],
        repeatInterval: 1,
        repeatEndsAt: null,
        timezone: zones[i % zones.length],
        tags: [`tag-${i}`],
        pauseAllChecks: false,
        silenceAllAlerts: false,
        silenceAlertsTags: [],
        description: null,
        statusPageVisibility: null,
      },
    };
  });
  const maintenance = new Maintenance({ all: async () => rows, list: async () => rows });
  await maintenance.load();
  const checks = Array.from({ length: CHECKS }, (_, i) => ({ tags: [`tag-${i % 1000}`, 'web'], groupTags: i % 3 ? [] : ['shop'] }));
  // A check every 10 s each: 1,000 runs a second, each asked about at its due time.
  let paused = 0;
  let runs = 0;
  const t0 = performance.now();
  for (let s = 0; s < SIMULATED_SECONDS; s++) {
    const at = now + s * 1000;
    for (let i = (s % 10) * 1000; i < ((s % 10) + 1) * 1000; i++) {
      if (maintenance.pauses('bench', at, checks[i])) paused++;
      runs++;
    }
  }
  const msPerRun = (performance.now() - t0) / runs;
  say('');
  say(`Maintenance (${CHECKS} checks every 10 s, ${WINDOWS} windows, ${SIMULATED_SECONDS} s simulated, ${runs} runs, ${paused} paused)`);
  say('| figure | value | target |');
  say('|---|---|---|');
  say(`| maintenance-window evaluation per scheduled run, ms | ${msPerRun.toFixed(5)} | ≤ 0.01 |`);
  return { maintenanceMsPerScheduledRun: msPerRun, runs, paused };
}
