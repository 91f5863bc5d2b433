// npm run bench, second part: URL, API, DNS and ICMP checks through the real service and agent,
// each beside blackbox_exporter's figure for the same probe in the same run, and the timing
// error of the URL runner (reported minus injected delay) at concurrency 1 and 100.

import http from 'node:http';
import dgram from 'node:dgram';
import path from 'node:path';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { request } from 'undici';
import type * as DnsPacket from 'dns-packet';
import { launch, cpuSeconds, sleep, percentile } from './procs.js';
import { startStack, createChecks, drain } from './stack.js';
import { startDelayServer } from './delay-server.js';

const packet = createRequire(import.meta.url)('dns-packet') as typeof DnsPacket;
// 4,000 checks: a backlog of 8,000 runs, so the drain lasts seconds and the CPU figure settles.
const CHECKS = Number(process.env.BENCH_PROBE_CHECKS ?? 4000);
const BACKLOG_S = Number(process.env.BENCH_PROBE_BACKLOG_SECONDS ?? 20);
const PEER_S = Number(process.env.BENCH_PEER_SECONDS ?? 10);
// Each type is measured in rounds (a drain, then blackbox_exporter), and the round with the
// median ratio is reported: on shared machines one round can be off by a fifth either way.
const ROUNDS = Number(process.env.BENCH_PROBE_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_AGENT_CONCURRENCY ?? 100);

async function httpTarget() {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => server.close() };
}

async function dnsTarget() {
  const sock = dgram.createSocket('udp4');
  sock.on('message', (msg, rinfo) => {
    const q = packet.decode(msg);
    const reply = packet.encode({
      type: 'response',
      id: q.id,
      flags: packet.AUTHORITATIVE_ANSWER,
      questions: q.questions,
      answers: [{ name: 'probe.test', type: 'A', ttl: 300, class: 'IN', data: '127.0.0.1' }],
    });
    sock.send(reply, rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r));
  return { port: sock.address().port, close: () => sock.close() };
}

async function blackbox(module: string, target: string): Promise<{ cpuSecondsPer1000: number; probesPerSecond: number } | string> {
  let bin: string;
  try {
    bin = execFileSync('sh', ['-c', 'command -v prometheus-blackbox-exporter'], { encoding: 'utf8' }).trim();
  } catch {
    return 'not installed';
  }
  const port = 20115 + Math.floor(Math.random() * 1000);
  const bbe = launch([`--config.file=${path.resolve('../shared/bench/blackbox.yml')}`, `--web.listen-address=127.0.0.1:${port}`], {}, bin);
  try {
    await bbe.waitFor((l) => /Listening on|msg="Listening/.test(l), 15_000).catch(() => sleep(1500));
    const url = `http://127.0.0.1:${port}/probe?module=${module}&target=${encodeURIComponent(target)}`;
    const probe = async () => void (await (await request(url)).body.text());
    const end0 = Date.now() + 1000;
    while (Date.now() < end0) await probe();
    const c0 = cpuSeconds(bbe.child.pid!);
    let n = 0;
    const end = Date.now() + PEER_S * 1000;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (Date.now() < end) {
          await probe();
          n++;
        }
      }),
    );
    return { cpuSecondsPer1000: ((cpuSeconds(bbe.child.pid!) - c0) / n) * 1000, probesPerSecond: n / PEER_S };
  } finally {
    await bbe.stop();
  }
}

/** Timing error of the URL runner against a server (in its own process) with known delays. */
async function timingError(): Promise<Record<string, unknown>> {
  const server = await startDelayServer();
  const port = server.port;
  const { runUrl } = await import('../checks/url.js');
  const { createLogger } = await import('../log.js');
  const log = createLogger('bench', 'ERROR');
  const out: Record<string, unknown> = {};
  try {
    for (const concurrency of [1, 100]) {
      const total = concurrency === 1 ? 500 : 3000;
      // The first runs compile the runner's code and fill its caches; an agent is past that.
      const warmUp = total / 10;
      const firstByte: number[] = [];
      const download: number[] = [];
      const reported = new Map<string, { firstByte: number; download: number }>();
      let i = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (i < total) {
            const path = `/c${concurrency}-${i++}`;
            const job = {
              id: 'b',
              checkId: 'b',
              checkType: 'URL',
              location: 'bench',
              dueAt: 0,
              timeoutMs: 10_000,
              check: {
                name: 'b',
                request: { url: `http://127.0.0.1:${port}${path}`, assertions: [] },
                degradedResponseTime: null,
                maxResponseTime: null,
                shouldFail: false,
              },
            };
            const r = await runUrl(job, { signal: new AbortController().signal, deadline: Date.now() + 10_000, log });
            reported.set(
              path,
              (r.detail.apiCheckResult as { response: { timingPhases: { firstByte: number; download: number } } }).response.timingPhases,
            );
          }
        }),
      );
      // Reported minus what the server really waited (its timers fire late by their own jitter).
      const applied = await server.applied();
      for (const [path, p] of reported) {
        const a = applied[path];
        if (!a || Number(path.split('-')[1]) < warmUp) continue;
        firstByte.push(p.firstByte - a.firstByte);
        download.push(p.download - a.download);
      }
      firstByte.sort((a, b) => a - b);
      download.sort((a, b) => a - b);
      out[`c${concurrency}`] = {
        firstByteErrorP50: percentile(firstByte, 50),
        firstByteErrorP99: percentile(firstByte, 99),
        downloadErrorP50: percentile(download, 50),
        downloadErrorP99: percentile(download, 99),
      };
    }
  } finally {
    server.stop();
  }
  return out;
}

type Round = { outpost: Awaited<ReturnType<typeof drain>>; blackbox: Awaited<ReturnType<typeof blackbox>> };

/** Agent CPU per check over blackbox_exporter's for the same probe; null without blackbox. */
function ratioOf(r: Round): number | null {
  return typeof r.blackbox === 'string' ? null : r.outpost.agentCpuSecondsPer1000 / r.blackbox.cpuSecondsPer1000;
}

function medianRound(rounds: Round[]): Round {
  const key = (r: Round) => ratioOf(r) ?? r.outpost.agentCpuSecondsPer1000;
  return [...rounds].sort((a, b) => key(a) - key(b))[Math.floor((rounds.length - 1) / 2)];
}

export async function benchProbes(say: (s: string) => void): Promise<Record<string, unknown>> {
  const web = await httpTarget();
  const ns = await dnsTarget();
  const out: Record<string, unknown> = {};
  const all: { name: string; path: string; body: () => Record<string, unknown>; module: string; target: string }[] = [
    {
      name: 'URL',
      path: '/v1/checks/url',
      body: () => ({ request: { url: `${web.url}/ok` } }),
      module: 'http_2xx',
      target: `${web.url}/ok`,
    },
    {
      name: 'API',
      path: '/v1/checks/api',
      body: () => ({
        request: { method: 'GET', url: `${web.url}/ok`, assertions: [{ source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'ok' }] },
      }),
      module: 'http_2xx',
      target: `${web.url}/ok`,
    },
    {
      name: 'DNS',
      path: '/v1/checks/dns',
      body: () => ({ request: { recordType: 'A', query: 'probe.test', nameServer: '127.0.0.1', port: ns.port } }),
      module: 'dns_udp',
      target: `127.0.0.1:${ns.port}`,
    },
    {
      name: 'ICMP',
      path: '/v1/checks/icmp',
      body: () => ({ request: { hostname: '127.0.0.1', pingCount: 1 } }),
      module: 'icmp',
      target: '127.0.0.1',
    },
  ];
  // BENCH_PROBES=ICMP,DNS measures only those (and skips the timing-error run unless URL or
  // TIMING is named; TIMING alone runs just that).
  const picked = process.env.BENCH_PROBES?.toUpperCase().split(',');
  const types = picked ? all.filter((t) => picked.includes(t.name)) : all;
  try {
    for (const t of types) {
      const stack = await startStack({ concurrency: CONCURRENCY });
      try {
        await createChecks(stack, CHECKS, t.path, t.body);
        await sleep(11_000);
        const rounds: Round[] = [];
        for (let i = 0; i < ROUNDS; i++) {
          const outpost = await drain(stack, BACKLOG_S, CHECKS / 100);
          // The agent is paused while blackbox_exporter is measured: the checks coming due
          // would otherwise keep it busy and share the cores with the peer.
          process.kill(stack.agent.child.pid!, 'SIGSTOP');
          try {
            rounds.push({ outpost, blackbox: await blackbox(t.module, t.target) });
          } finally {
            process.kill(stack.agent.child.pid!, 'SIGCONT');
          }
        }
        out[t.name] = { ...medianRound(rounds), rounds };
      } finally {
        await stack.stop();
      }
    }
    if (!picked || picked.includes('URL') || picked.includes('TIMING')) out.timingError = await timingError();
  } finally {
    web.close();
    ns.close();
  }
  say('');
  // The targets are absolute, set on a machine where blackbox_exporter took the CPU given
  // here; machines differ, so each is judged as a ratio to blackbox in the same run.
  const targets: Record<string, { cpu: number; blackbox: number }> = {
    URL: { cpu: 0.4, blackbox: 0.98 },
    API: { cpu: 0.4, blackbox: 0.98 },
    DNS: { cpu: 0.2, blackbox: 0.74 },
    ICMP: { cpu: 0.2, blackbox: 0.67 },
  };
  if (types.length) {
    say(
      `| check type (median of ${ROUNDS} rounds) | agent checks/s (drain) | agent CPU-s per 1,000 | blackbox_exporter CPU-s per 1,000 | ratio (all rounds) | target (ratio) | met |`,
    );
    say('|---|---|---|---|---|---|---|');
  }
  for (const t of types) {
    const r = out[t.name] as Round & { rounds: Round[] };
    const target = targets[t.name];
    const bb = typeof r.blackbox === 'string' ? r.blackbox : r.blackbox.cpuSecondsPer1000.toFixed(3);
    const ratio = ratioOf(r);
    const limit = target.cpu / target.blackbox;
    const all = r.rounds.map((x) => ratioOf(x)?.toFixed(2) ?? '').join(', ');
    say(
      `| ${t.name} | ${r.outpost.checksPerSecond.toFixed(0)} | ${r.outpost.agentCpuSecondsPer1000.toFixed(3)} | ${bb} | ${ratio === null ? '' : `${ratio.toFixed(2)} (${all})`} | ≤ ${target.cpu} at blackbox ${target.blackbox} (≤ ${limit.toFixed(2)}) | ${ratio === null ? '' : ratio <= limit ? 'yes' : 'no'} |`,
    );
  }
  const te = out.timingError as Record<string, Record<string, number>> | undefined;
  if (!te) return out;
  say('');
  say('| URL timing error (reported − delay the server applied, ~20 ms) | p50 ms | p99 ms | target p99 | met |');
  say('|---|---|---|---|---|');
  for (const c of ['c1', 'c100']) {
    const limit = c === 'c1' ? 1 : 5;
    for (const [what, key] of [
      ['first byte', 'firstByte'],
      ['download', 'download'],
    ] as const) {
      const p99 = te[c][`${key}ErrorP99`];
      say(
        `| ${what}, concurrency ${c.slice(1)} | ${te[c][`${key}ErrorP50`].toFixed(2)} | ${p99.toFixed(2)} | ≤ ${limit} | ${Math.abs(p99) <= limit ? 'yes' : 'no'} |`,
      );
    }
  }
  return out;
}
