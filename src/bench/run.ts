// npm run bench: the real service feeding a real agent with TCP checks against a local TCP
// server, and the same probe through Prometheus blackbox_exporter and a bare Node loop, in one
// run so the ratios are fair on a shared machine.
//
// Phases:
//  1. idle: agent RSS with nothing to do.
//  2. steady: CHECKS checks every 10 s (CHECKS/10 runs per second); dispatch latency due→start
//     from the service's recent-quantile summary, agent RSS under load.
//  3. backlog: the agent is frozen (SIGSTOP) while runs pile up, then thawed; the drain measures
//     the agent's top speed and the CPU of agent and service per 1,000 checks.
//  4. peers: blackbox_exporter's tcp_connect probe and a bare Node connect loop, closed-loop.

import { benchRedos } from './redos.js';
import { benchScripts } from './scripts.js';
import { benchAlerts } from './alerts.js';
import { benchMaintenance } from './maintenance.js';
import { benchStore } from './store.js';
import { benchPages } from './pages.js';
import { benchBrowser } from './browser.js';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { request } from 'undici';
import { launch, cpuSeconds, cpuSecondsOf, rssMb, sleep } from './procs.js';
import { startStack, createChecks, drain } from './stack.js';
import { startPostgres } from './postgres.js';
import { benchProbes } from './probes.js';
import { benchSteady } from './steady.js';
import { benchStart } from './start.js';

const CHECKS = Number(process.env.BENCH_CHECKS ?? 10_000);
const STEADY_S = Number(process.env.BENCH_STEADY_SECONDS ?? 20);
const BACKLOG_S = Number(process.env.BENCH_BACKLOG_SECONDS ?? 30);
const CONCURRENCY = Number(process.env.BENCH_AGENT_CONCURRENCY ?? 100);
const PEER_S = Number(process.env.BENCH_PEER_SECONDS ?? 10);
const PEER_CONCURRENCY = 10;

const out: Record<string, unknown> = {};
const say = (s: string) => process.stdout.write(`${s}\n`);

async function tcpTarget(): Promise<{ port: number; close(): void }> {
  const server = net.createServer((s) => {
    s.on('error', () => {});
    s.on('data', (d) => s.write(d));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

async function benchOutpost(target: number) {
  // BENCH_STORAGE=postgres: a throwaway PostgreSQL server instead of the embedded database.
  const pg = process.env.BENCH_STORAGE === 'postgres' ? await startPostgres() : null;
  out.storage = pg ? 'postgres' : 'embedded';
  const stack = await startStack({ concurrency: CONCURRENCY, env: pg ? { DATABASE_URL: `${pg.url}/postgres` } : {} });
  try {
    // Idle means settled: start-up garbage collected and freed memory returned (RSS falls for
    // the first ~15 s after start).
    await sleep(20_000);
    const agentPid = stack.agent.child.pid!;
    const svcPid = stack.svc.child.pid!;
    out.agentIdleRssMb = rssMb(agentPid);
    out.checkCreatesPerSecond = await createChecks(stack, CHECKS, '/v1/checks/tcp', () => ({
      request: { hostname: '127.0.0.1', port: target },
    }));

    // Steady: the agent keeps up with CHECKS/10 runs per second. First let any backlog from the
    // creation phase drain, and every check come due once.
    await sleep(10_000);
    for (let i = 0; i < 120 && (await stack.metric('outpost_jobs_pending')) > CHECKS / 100; i++) await sleep(500);
    await sleep(2_000);
    let rssMax = 0;
    const steadyEnd = Date.now() + STEADY_S * 1000;
    const r0 = await stack.metric('outpost_results_stored_total');
    const a0 = cpuSeconds(agentPid);
    const s0 = cpuSeconds(svcPid);
    while (Date.now() < steadyEnd) {
      rssMax = Math.max(rssMax, rssMb(agentPid));
      await sleep(500);
    }
    const r1 = await stack.metric('outpost_results_stored_total');
    out.steady = {
      runsPerSecond: (r1 - r0) / STEADY_S,
      agentCpuSecondsPer1000: ((cpuSeconds(agentPid) - a0) / (r1 - r0)) * 1000,
      serviceCpuSecondsPer1000: ((cpuSeconds(svcPid) - s0) / (r1 - r0)) * 1000,
      dispatchP50Ms: (await stack.metric('outpost_dispatch_latency_recent_seconds', 'quantile="0.5"')) * 1000,
      dispatchP99Ms: (await stack.metric('outpost_dispatch_latency_recent_seconds', 'quantile="0.99"')) * 1000,
      agentRssMaxMb: rssMax,
    };

    // Backlog: the agent's top speed, and the PostgreSQL server's share when it is the store.
    const p0 = pg ? cpuSecondsOf('postgres') : 0;
    const d = await drain(stack, BACKLOG_S, CHECKS / 10);
    out.drain = { ...d, postgresCpuSecondsPer1000: pg ? ((cpuSecondsOf('postgres') - p0) / d.checks) * 1000 : null };
  } finally {
    await stack.stop();
    pg?.stop();
  }
}

/** Closed-loop driver: `concurrency` loops calling fn for `seconds`. */
async function closedLoop(seconds: number, concurrency: number, fn: () => Promise<void>): Promise<number> {
  const end = Date.now() + seconds * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        await fn();
        n++;
      }
    }),
  );
  return n;
}

async function benchBlackbox(target: number) {
  let bin: string;
  try {
    bin = execFileSync('sh', ['-c', 'command -v prometheus-blackbox-exporter'], { encoding: 'utf8' }).trim();
  } catch {
    out.blackbox = 'not installed (apt-get install prometheus-blackbox-exporter)';
    return;
  }
  const config = path.resolve('../shared/bench/blackbox.yml');
  const port = 19115 + Math.floor(Math.random() * 1000);
  const bbe = launch([`--config.file=${config}`, `--web.listen-address=127.0.0.1:${port}`], {}, bin);
  try {
    await bbe.waitFor((l) => /Listening on|msg="Listening/.test(l), 15_000).catch(() => sleep(1500));
    const url = `http://127.0.0.1:${port}/probe?module=tcp_connect&target=127.0.0.1:${target}`;
    const probe = async () => {
      const res = await request(url);
      await res.body.text();
    };
    await closedLoop(1, PEER_CONCURRENCY, probe);
    const c0 = cpuSeconds(bbe.child.pid!);
    const n = await closedLoop(PEER_S, PEER_CONCURRENCY, probe);
    out.blackbox = { probes: n, probesPerSecond: n / PEER_S, cpuSecondsPer1000: ((cpuSeconds(bbe.child.pid!) - c0) / n) * 1000 };
  } finally {
    await bbe.stop();
  }
}

async function benchBareNode(target: number) {
  const code = `
    const net = require('node:net');
    const end = Date.now() + ${PEER_S * 1000}; let n = 0;
    const one = () => new Promise((res) => { const s = net.connect(${target}, '127.0.0.1'); s.once('connect', () => { s.destroy(); res(); }); s.once('error', res); });
    const c0 = process.cpuUsage();
    Promise.all(Array.from({ length: ${PEER_CONCURRENCY} }, async () => { while (Date.now() < end) { await one(); n++; } }))
      .then(() => { const c = process.cpuUsage(c0); console.log(JSON.stringify({ n, cpu: (c.user + c.system) / 1e6 })); });`;
  // Asynchronously: the target server lives in this process and must keep accepting.
  const res = JSON.parse((await promisify(execFile)(process.execPath, ['-e', code], { encoding: 'utf8' })).stdout);
  out.bareNode = { probesPerSecond: res.n / PEER_S, cpuSecondsPer1000: (res.cpu / res.n) * 1000 };
}

const fmt = (v: unknown, d = 2) => (typeof v === 'number' ? v.toFixed(d) : String(v));

async function main() {
  const target = await tcpTarget();
  say(
    `Outpost TCP benchmark: ${CHECKS} checks every 10 s, agent JOB_CONCURRENCY ${CONCURRENCY}, ${os.cpus().length} cores, storage ${process.env.BENCH_STORAGE === 'postgres' ? 'postgres' : 'embedded'}`,
  );
  // BENCH_ONLY: one part alone. 'tcp' and 'probes' share the TCP target; the others need none.
  const only = process.env.BENCH_ONLY;
  const alone: Record<string, (say: (s: string) => void) => Promise<unknown>> = {
    start: benchStart,
    steady: benchSteady,
    browser: benchBrowser,
    redos: benchRedos,
    scripts: benchScripts,
    alerts: benchAlerts,
    maintenance: benchMaintenance,
    store: benchStore,
    pages: benchPages,
  };
  const part = only ? alone[only] : undefined;
  if (part) {
    target.close();
    say(JSON.stringify(await part(say)));
    return;
  }
  try {
    if (only !== 'probes') {
      await benchOutpost(target.port);
      await benchBlackbox(target.port);
      await benchBareNode(target.port);
    }
  } finally {
    target.close();
  }
  if (only !== 'tcp') out.probes = await benchProbes(say);
  if (!only) out.steadyRates = await benchSteady(say);
  if (!only) out.start = await benchStart(say);
  if (!only) out.browser = await benchBrowser(say);
  if (!only) out.redos = await benchRedos(say);
  if (!only) out.scripts = await benchScripts(say);
  if (!only) out.alerts = await benchAlerts(say);
  if (!only) out.maintenance = await benchMaintenance(say);
  if (!only) out.store = await benchStore(say);
  if (!only) out.pages = await benchPages(say);
  if (only === 'probes') {
    say('');
    say(JSON.stringify(out));
    return;
  }
  const st = out.steady as Record<string, number>;
  const dr = out.drain as Record<string, number>;
  const bb = out.blackbox as Record<string, number> | string;
  const bare = out.bareNode as Record<string, number>;
  say('');
  say('| figure | value | target |');
  say('|---|---|---|');
  say(`| agent TCP checks/s (backlog drain of ${fmt(dr.backlog, 0)}) | ${fmt(dr.checksPerSecond, 0)} | ≥ 5000 |`);
  say(`| agent CPU-s per 1,000 TCP checks (drain) | ${fmt(dr.agentCpuSecondsPer1000, 3)} | ≤ 0.2 |`);
  say(`| service CPU-s per 1,000 results stored (drain) | ${fmt(dr.serviceCpuSecondsPer1000, 3)} | ≤ 0.1 |`);
  if (dr.postgresCpuSecondsPer1000 !== null)
    say(`| PostgreSQL server CPU-s per 1,000 results (drain) | ${fmt(dr.postgresCpuSecondsPer1000, 3)} | |`);
  say(`| steady runs/s | ${fmt(st.runsPerSecond, 0)} | |`);
  say(`| agent CPU-s per 1,000 TCP checks (steady) | ${fmt(st.agentCpuSecondsPer1000, 3)} | ≤ 0.2 |`);
  say(`| service CPU-s per 1,000 results (steady, incl. scheduling) | ${fmt(st.serviceCpuSecondsPer1000, 3)} | ≤ 0.2 |`);
  say(`| dispatch due→start p50 / p99 ms (steady) | ${fmt(st.dispatchP50Ms, 1)} / ${fmt(st.dispatchP99Ms, 1)} | p99 ≤ 50 |`);
  say(
    `| agent RSS idle / steady / drain MB | ${fmt(out.agentIdleRssMb, 0)} / ${fmt(st.agentRssMaxMb, 0)} / ${fmt(dr.agentRssMaxMb, 0)} | idle ≤ 60 |`,
  );
  say(`| check creation via API, per second (${CHECKS} checks) | ${fmt(out.checkCreatesPerSecond, 0)} | ≥ 2000 |`);
  const start = out.start as Record<string, number> | undefined;
  if (start) {
    say(`| \`outpost start\` first start on an empty data directory, s | ${fmt(start.firstStartSeconds, 2)} | ≤ 2 |`);
    say(`| \`outpost start\` idle RSS, whole process, 1,000 checks stored, MB | ${fmt(start.idleRssMb, 0)} | ≤ 150 |`);
  }
  const redos = out.redos as Record<string, number> | undefined;
  if (redos)
    say(
      `| API p99 while backtracking-regex checks run, ms (without them) | ${fmt(redos.apiP99Ms, 1)} (${fmt(redos.quietApiP99Ms, 1)}) | ≤ 100 |`,
    );
  const scripts = out.scripts as Record<string, number | null> | undefined;
  if (scripts?.ratio != null) say(`| setup script per run, sandboxed Node host / previous vm host | ${fmt(scripts.ratio, 2)} | ≤ 1.5 |`);
  if (typeof bb === 'string') say(`| blackbox_exporter | ${bb} | |`);
  else {
    say(`| blackbox_exporter tcp_connect CPU-s per 1,000 (c=${PEER_CONCURRENCY}) | ${fmt(bb.cpuSecondsPer1000, 3)} | |`);
    say(`| ratio agent (drain) / blackbox_exporter | ${fmt(dr.agentCpuSecondsPer1000 / bb.cpuSecondsPer1000, 2)} | |`);
  }
  say(`| bare Node connect loop CPU-s per 1,000 (c=${PEER_CONCURRENCY}) | ${fmt(bare.cpuSecondsPer1000, 3)} | floor |`);
  say('');
  say(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
