// npm run bench, pages: a status page of 100 services, each watched by a check that ran once a
// minute for 90 days, with incidents past and open. Server time of the page (sequential
// requests, compressed as browsers ask) and time to first paint in Chromium, fresh each time.
//
// The 90 days are written into the daily rollup directly (as storing 13 million results would
// have left it): the page reads the rollup, never the results, so only its contents matter.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { chromium } from 'playwright';
import { launch, sleep } from './procs.js';
import { startPostgres } from './postgres.js';
import { openStore } from '../service/store/index.js';
import type { DayRow } from '../service/store/results.js';
import { lastDays } from '../domain/status-page.js';
import { CHROMIUM_FLAGS } from '../checks/pw/browser-server.js';

const SERVICES = 100;
const REQUESTS = Number(process.env.BENCH_PAGES_REQUESTS ?? 300);
const PAINTS = Number(process.env.BENCH_PAGES_PAINTS ?? 15);

const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];

export async function benchPages(say: (s: string) => void) {
  const pg = process.env.BENCH_STORAGE === 'postgres' ? await startPostgres() : null;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-bench-pages-'));
  const key = 'bench-pages-key-0123456789';
  const env = {
    PORT: '0',
    OUTPOST_DATA_DIR: dataDir,
    OUTPOST_API_KEY: key,
    LOG_LEVEL: 'WARN',
    OUTPOST_API_RATE_LIMIT_PER_SECOND: '0',
    ...(pg ? { DATABASE_URL: `${pg.url}/postgres` } : {}),
  };
  const start = async () => {
    const svc = launch(['service'], env);
    const base = (await svc.waitFor((l) => l.includes('Base URL'))).split('Base URL:')[1].trim();
    return { svc, base };
  };
  let { svc, base } = await start();
  const api = async (method: string, p: string, body?: unknown) => {
    const res = await request(base + p, {
      method: method as 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${p}: ${res.statusCode} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  try {
    const services: { id: string; name: string }[] = [];
    const checks: string[] = [];
    for (let i = 0; i < SERVICES; i++) {
      services.push(await api('POST', '/v1/status-pages/services', { name: `Service ${i + 1}` }));
      const check = await api('POST', '/v1/checks/url', {
        name: `probe ${i + 1}`,
        frequency: 1,
        request: { url: `http://127.0.0.1:9/${i}` },
        triggerIncident: { serviceId: services[i].id, severity: 'MAJOR', name: 'Down', description: 'Down', notifySubscribers: false },
      });
      checks.push(check.id);
    }
    await api('POST', '/v1/status-pages', {
      name: 'Bench',
      url: 'bench',
      cards: Array.from({ length: 10 }, (_, c) => ({
        name: `Area ${c + 1}`,
        services: services.slice(c * 10, c * 10 + 10).map((s) => ({ id: s.id })),
      })),
    });
    // 30 incidents over the 90 days, resolved after two hours; two still open.
    const now = Date.now();
    for (let i = 0; i < 32; i++) {
      const at = now - (i < 30 ? (i * 3 + 1) * 86_400_000 : 3_600_000);
      const incident = await api('POST', '/v1/status-pages/incidents', {
        name: `Incident ${i + 1}`,
        severity: ['MINOR', 'MEDIUM', 'MAJOR', 'CRITICAL'][i % 4],
        services: [{ id: services[(i * 7) % SERVICES].id }],
        incidentUpdates: [
          { description: 'Looking into it', status: 'INVESTIGATING', publicIncidentUpdateDate: new Date(at).toISOString() },
        ],
      });
      if (i < 30)
        await api('POST', `/v1/status-pages/incidents/${incident.id}/incident-updates`, {
          description: 'Fixed',
          status: 'RESOLVED',
          publicIncidentUpdateDate: new Date(at + 7_200_000).toISOString(),
        });
    }
    await svc.stop();

    // 90 days at one run a minute; a few failures on one day in ten.
    const store = await openStore({ dataDir, databaseUrl: env.DATABASE_URL });
    const today = lastDays(now, 1)[0];
    const minutesToday = Math.floor((now - Date.parse(`${today}T00:00:00Z`)) / 60_000);
    const rows: DayRow[] = checks.flatMap((id, c) =>
      lastDays(now).map((day, d) => {
        const runs = day === today ? Math.max(1, minutesToday) : 1440;
        return {
          check_id: id,
          day,
          runs,
          failures: (c + d) % 10 === 0 ? (c % 30) + 1 : 0,
          degraded: (c + d) % 7 === 0 ? 3 : 0,
          response_time_sum: runs * 120,
        };
      }),
    );
    await store.results.addDays(rows);
    await store.close();
    ({ svc, base } = await start());
    await sleep(2_000);

    const url = `${base}/status/bench`;
    const get = async () => {
      const t0 = performance.now();
      const res = await request(url, { headers: { accept: 'text/html', 'accept-encoding': 'gzip' } });
      const body = Buffer.from(await res.body.arrayBuffer());
      if (res.statusCode !== 200) throw new Error(`GET /status/bench: ${res.statusCode}`);
      return { ms: performance.now() - t0, bytes: body.length };
    };
    for (let i = 0; i < 20; i++) await get();
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < REQUESTS; i++) {
      const r = await get();
      times.push(r.ms);
      bytes = r.bytes;
    }
    const raw = (await (await request(url)).body.text()).length;

    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
    const paints: number[] = [];
    try {
      for (let i = 0; i < PAINTS + 1; i++) {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(url, { waitUntil: 'load' });
        // Paint entries are buffered: the observer sees the page's first contentful paint even
        // when it came before this question.
        const fcp = await page.evaluate(
          () =>
            new Promise<number>((resolve) => {
              new PerformanceObserver((list) => {
                const e = list.getEntriesByName('first-contentful-paint')[0];
                if (e) resolve(e.startTime);
              }).observe({ type: 'paint', buffered: true });
              setTimeout(() => resolve(NaN), 5_000);
            }),
        );
        // The first navigation warms the browser process itself.
        if (i > 0) paints.push(fcp);
        await context.close();
      }
    } finally {
      await browser.close();
    }
    const figures = {
      storage: pg ? 'postgres' : 'embedded',
      services: SERVICES,
      dayRows: rows.length,
      htmlBytes: raw,
      gzipBytes: bytes,
      serverP50Ms: pct(times, 0.5),
      serverP99Ms: pct(times, 0.99),
      firstPaintP50Ms: pct(paints, 0.5),
      firstPaintMaxMs: Math.max(...paints),
    };
    say('');
    say(
      `Status page (${SERVICES} services in 10 cards, 90 days at 1 run/min each, 32 incidents; ${figures.storage}; ${REQUESTS} requests, ${PAINTS} loads)`,
    );
    say('| figure | value | target |');
    say('|---|---|---|');
    say(`| page size, HTML / gzip, KB | ${(raw / 1024).toFixed(0)} / ${(bytes / 1024).toFixed(0)} | |`);
    say(`| server time p50 / p99, ms | ${figures.serverP50Ms.toFixed(1)} / ${figures.serverP99Ms.toFixed(1)} | p99 ≤ 100 |`);
    say(
      `| first contentful paint in Chromium p50 / max, ms | ${figures.firstPaintP50Ms.toFixed(0)} / ${figures.firstPaintMaxMs.toFixed(0)} | ≤ 500 |`,
    );
    return figures;
  } finally {
    await svc.stop();
    pg?.stop();
  }
}
