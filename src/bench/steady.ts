// npm run bench, steady rates: agents in the field run their checks at 1-1,000 a second, not in
// backlogs. For TCP and URL checks at each rate: N checks every 10 s on a private location (N/10
// a second), agent and service in their own processes, CPU of each over the same window after a
// warm-up, the latency from a run finishing to its result being stored; and blackbox_exporter
// asked at the same fixed rate (open loop: a timer starts `rate × elapsed` probes, whether or not
// earlier ones answered), so per-probe costs are compared at equal rates. Also the idle agent.
//
// At low rates the first minutes after start are not the steady state: V8 keeps optimising
// functions as they slowly get hot (at 10 checks/s, TurboFan compiles were ~20 % of the service's
// CPU two minutes in) and its memory reducer runs a few full collections once the start-up
// garbage goes quiet. Processes run for days, so at rates up to SETTLE_MAX_RATE a second window
// is measured once that has passed ("settled"), beside the early one.

import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { request } from 'undici';
import { cpuSeconds, launch, sleep } from './procs.js';
import { startStack, createChecks, type Stack } from './stack.js';

const RATES = (process.env.BENCH_STEADY_RATES ?? '10,100,1000').split(',').map(Number);
const TYPES = (process.env.BENCH_STEADY_TYPES ?? 'TCP,URL').split(',');
const WINDOW_S = Number(process.env.BENCH_STEADY_WINDOW_SECONDS ?? 30);
const WARMUP_S = 15;
const SETTLE_S = Number(process.env.BENCH_STEADY_SETTLE_SECONDS ?? 180);
const SETTLE_MAX_RATE = 10;

export interface SteadyRow {
  type: string;
  rate: number;
  runsPerSecond: number;
  agentCpuSecondsPer1000: number;
  serviceCpuSecondsPer1000: number;
  resultLatencyP50Ms: number;
  resultLatencyP99Ms: number;
  /** The same, measured from SETTLE_S after the checks were created; null above SETTLE_MAX_RATE. */
  settled: { agentCpuSecondsPer1000: number; serviceCpuSecondsPer1000: number } | null;
  blackboxCpuSecondsPer1000: number | null;
}

async function targets() {
  const tcp = net.createServer((s) => {
    s.on('error', () => {});
    s.end();
  });
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
  const web = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
    res.end('ok');
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  return {
    tcpPort: (tcp.address() as net.AddressInfo).port,
    url: `http://127.0.0.1:${(web.address() as net.AddressInfo).port}/`,
    close() {
      tcp.close();
      web.close();
    },
  };
}

/** CPU ms a second of the agent with nothing to do (registered, long-polling). */
async function idleAgent(stack: Stack): Promise<number> {
  // Past start-up: its compilation and first collections are not what idling costs.
  await sleep(15_000);
  const pid = stack.agent.child.pid!;
  const c0 = cpuSeconds(pid);
  await sleep(WINDOW_S * 1000);
  return ((cpuSeconds(pid) - c0) * 1000) / WINDOW_S;
}

async function outpostAt(
  type: string,
  rate: number,
  t: Awaited<ReturnType<typeof targets>>,
): Promise<Omit<SteadyRow, 'blackboxCpuSecondsPer1000'>> {
  const stack = await startStack({ concurrency: 100 });
  try {
    const n = rate * 10;
    if (type === 'TCP') await createChecks(stack, n, '/v1/checks/tcp', () => ({ request: { hostname: '127.0.0.1', port: t.tcpPort } }));
    else await createChecks(stack, n, '/v1/checks/url', () => ({ request: { url: t.url } }));
    const created = Date.now();
    // Every check comes due once before the window, so the rate is the steady one.
    await sleep((10 + WARMUP_S) * 1000);
    const agentPid = stack.agent.child.pid!;
    const svcPid = stack.svc.child.pid!;
    const window = async () => {
      const r0 = await stack.metric('outpost_results_stored_total');
      const a0 = cpuSeconds(agentPid);
      const s0 = cpuSeconds(svcPid);
      await sleep(WINDOW_S * 1000);
      const results = (await stack.metric('outpost_results_stored_total')) - r0;
      return {
        results,
        agentCpuSecondsPer1000: ((cpuSeconds(agentPid) - a0) / results) * 1000,
        serviceCpuSecondsPer1000: ((cpuSeconds(svcPid) - s0) / results) * 1000,
      };
    };
    const early = await window();
    const row = {
      type,
      rate,
      runsPerSecond: early.results / WINDOW_S,
      agentCpuSecondsPer1000: early.agentCpuSecondsPer1000,
      serviceCpuSecondsPer1000: early.serviceCpuSecondsPer1000,
      resultLatencyP50Ms: (await stack.metric('outpost_result_latency_recent_seconds', 'quantile="0.5"')) * 1000,
      resultLatencyP99Ms: (await stack.metric('outpost_result_latency_recent_seconds', 'quantile="0.99"')) * 1000,
      settled: null as SteadyRow['settled'],
    };
    if (rate <= SETTLE_MAX_RATE) {
      await sleep(Math.max(0, created + SETTLE_S * 1000 - Date.now()));
      const { agentCpuSecondsPer1000, serviceCpuSecondsPer1000 } = await window();
      row.settled = { agentCpuSecondsPer1000, serviceCpuSecondsPer1000 };
    }
    return row;
  } finally {
    await stack.stop();
  }
}

/** blackbox_exporter's CPU per 1,000 probes when asked `rate` times a second; null if not installed. */
async function blackboxAt(type: string, rate: number, t: Awaited<ReturnType<typeof targets>>): Promise<number | null> {
  let bin: string;
  try {
    bin = execFileSync('sh', ['-c', 'command -v prometheus-blackbox-exporter'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
  const port = 21115 + Math.floor(Math.random() * 1000);
  const bbe = launch([`--config.file=${path.resolve('../shared/bench/blackbox.yml')}`, `--web.listen-address=127.0.0.1:${port}`], {}, bin);
  try {
    await bbe.waitFor((l) => /Listening on|msg="Listening/.test(l), 15_000).catch(() => sleep(1500));
    const url =
      type === 'TCP'
        ? `http://127.0.0.1:${port}/probe?module=tcp_connect&target=127.0.0.1:${t.tcpPort}`
        : `http://127.0.0.1:${port}/probe?module=http_2xx&target=${encodeURIComponent(t.url)}`;
    const openLoop = async (seconds: number) => {
      const start = Date.now();
      const inFlight: Promise<void>[] = [];
      let sent = 0;
      while (Date.now() - start < seconds * 1000) {
        const due = Math.floor(((Date.now() - start) / 1000) * rate);
        for (; sent < due; sent++) inFlight.push(request(url).then((res) => res.body.text().then(() => {})));
        await sleep(5);
      }
      await Promise.all(inFlight);
      return sent;
    };
    await openLoop(3);
    const c0 = cpuSeconds(bbe.child.pid!);
    const sent = await openLoop(WINDOW_S);
    return ((cpuSeconds(bbe.child.pid!) - c0) / sent) * 1000;
  } finally {
    await bbe.stop();
  }
}

export async function benchSteady(say: (s: string) => void): Promise<{ agentIdleCpuMsPerSecond: number; rows: SteadyRow[] }> {
  const t = await targets();
  try {
    const idleStack = await startStack({ concurrency: 100 });
    let agentIdleCpuMsPerSecond: number;
    try {
      agentIdleCpuMsPerSecond = await idleAgent(idleStack);
    } finally {
      await idleStack.stop();
    }
    const rows: SteadyRow[] = [];
    for (const type of TYPES) {
      for (const rate of RATES) {
        const row = { ...(await outpostAt(type, rate, t)), blackboxCpuSecondsPer1000: await blackboxAt(type, rate, t) };
        rows.push(row);
        say(`steady ${type} ${rate}/s: ${JSON.stringify(row)}`);
      }
    }
    const f = (v: number | null, d = 2) => (v === null || Number.isNaN(v) ? 'n/a' : v.toFixed(d));
    say('');
    say(`Idle agent (registered, no checks): ${f(agentIdleCpuMsPerSecond)} ms CPU a second (target ≤ 1)`);
    say('');
    say(
      `| type | rate/s | runs/s | agent CPU-s / 1,000 | service CPU-s / 1,000 | blackbox CPU-s / 1,000 | agent / blackbox | result latency p50 / p99 ms |`,
    );
    say('|---|---|---|---|---|---|---|---|');
    const both = (early: number, settled: number | undefined, d = 3) =>
      settled === undefined ? f(early, d) : `${f(early, d)} → ${f(settled, d)}`;
    for (const r of rows) {
      const ratio = (agent: number) => (r.blackboxCpuSecondsPer1000 ? agent / r.blackboxCpuSecondsPer1000 : NaN);
      say(
        `| ${r.type} | ${r.rate} | ${f(r.runsPerSecond, 1)} | ${both(r.agentCpuSecondsPer1000, r.settled?.agentCpuSecondsPer1000)} | ${both(r.serviceCpuSecondsPer1000, r.settled?.serviceCpuSecondsPer1000)} | ${f(r.blackboxCpuSecondsPer1000, 3)} | ${both(ratio(r.agentCpuSecondsPer1000), r.settled ? ratio(r.settled.agentCpuSecondsPer1000) : undefined, 2)} | ${f(r.resultLatencyP50Ms, 0)} / ${f(r.resultLatencyP99Ms, 0)} |`,
      );
    }
    say(
      `"a → b": ${WARMUP_S + 10} s after the checks were created → settled, from ${SETTLE_S} s (V8's optimising compiler and memory reducer done).`,
    );
    say('Targets: agent ≤ 0.5× blackbox_exporter at every rate; service ≤ 0.5 CPU-s per 1,000 results at 10 checks/s.');
    return { agentIdleCpuMsPerSecond, rows };
  } finally {
    t.close();
  }
}
