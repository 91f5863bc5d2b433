// Setup scripts, per run: the sandboxed Node host (runtime packages, permission model,
// bubblewrap) against the host it replaced (a bare Node child running the script in a vm
// context), measured side by side in one run.

import { spawn } from 'node:child_process';
import { runScript } from '../checks/script-sandbox.js';
import { Sandbox } from '../checks/sandbox.js';
import { runtimeModules, DEFAULT_RUNTIMES_DIR } from '../runtimes/catalog.js';
import { DEFAULT_RUNTIME_ID } from '../domain/limits.js';

const RUNS = Number(process.env.BENCH_SCRIPT_RUNS ?? 20);
const SCRIPT = `request.headers['x-signed'] = environment.SIGNING_KEY + ':' + request.url; console.log('signed');`;
const INPUT = { request: { url: 'https://example.test/', headers: {} }, response: null, variables: { SIGNING_KEY: 'k3y' } };

/** The previous host, in short: JSON in on stdin, the script in a vm context, JSON out. */
const VM_HOST = `const vm = require('vm'); let raw = ''; process.stdin.on('data', (d) => (raw += d)).on('end', () => {
  const input = JSON.parse(raw); const logs = [];
  const ctx = vm.createContext(Object.create(null), { codeGeneration: { strings: false, wasm: false } });
  vm.runInContext('globalThis.request = ' + JSON.stringify(input.request) + '; globalThis.environment = ' + JSON.stringify(input.variables) + '; globalThis.__logs = []; globalThis.console = { log: (...a) => __logs.push(a.join(" ")) };', ctx);
  vm.runInContext(input.script, ctx, { timeout: 10000 });
  process.stdout.write(vm.runInContext('JSON.stringify({ request: globalThis.request, logs: globalThis.__logs })', ctx));
});`;

function vmHost(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--disallow-code-generation-from-strings', '--max-old-space-size=64', '-e', VM_HOST], {
      env: {},
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', () => (out.includes('k3y') ? resolve() : reject(new Error(`vm host: ${out}`))));
    child.stdin.end(JSON.stringify({ ...INPUT, script: SCRIPT }));
  });
}

async function medianMs(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

export async function benchScripts(say: (s: string) => void): Promise<Record<string, number | string | null>> {
  const modules = runtimeModules(DEFAULT_RUNTIME_ID, DEFAULT_RUNTIMES_DIR);
  const { sandbox, reason } = await Sandbox.detect('auto', [DEFAULT_RUNTIMES_DIR, runtimeModules('2026.04', DEFAULT_RUNTIMES_DIR)]);
  const check = async (place: { modules: string; sandbox: Sandbox | null }) => {
    const out = await runScript(SCRIPT, INPUT, 10_000, place);
    if (out.error) throw new Error(`script: ${out.error}`);
  };
  // Interleaved warm-up, so neither side pays for a cold page cache alone.
  await vmHost();
  await check({ modules, sandbox: null });
  const vmMs = await medianMs(vmHost);
  const permissionMs = await medianMs(() => check({ modules, sandbox: null }));
  const sandboxedMs = sandbox ? await medianMs(() => check({ modules, sandbox })) : null;
  say(
    `Setup script per run (median of ${RUNS}): previous vm host ${vmMs.toFixed(1)} ms, Node host ${permissionMs.toFixed(1)} ms, ` +
      (sandboxedMs !== null
        ? `in the sandbox ${sandboxedMs.toFixed(1)} ms (ratio ${(sandboxedMs / vmMs).toFixed(2)}, target ≤ 1.5)`
        : `no sandbox here: ${reason}`),
  );
  return { vmHostMs: vmMs, nodeHostMs: permissionMs, sandboxedMs, ratio: sandboxedMs !== null ? sandboxedMs / vmMs : null };
}
