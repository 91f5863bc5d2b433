// Setup and teardown scripts of API checks run as Node, as Checkly users write them: `require`
// of their runtime's packages (and only those), top-level `await`, `process.env` holding the
// check's variables and nothing else. Each run is a child process of its own, in a folder of its
// own, under Node's permission model (it may read its folder and the runtime's packages and
// nothing else of the file system, /proc included; no child processes, no workers), inside the
// agent's sandbox when there is one, with a heap limit and a time limit.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killGroup, spawnGroup, type Sandbox, type SandboxedCommand } from './sandbox.js';

export const SCRIPT_MEMORY_MB = 64;
const LOG_LINES = 100;
const STDERR_LIMIT = 10_000;

export interface ScriptOutcome {
  request: unknown;
  logs: string[];
  error: string | null;
}

/** Where a script runs: its runtime's packages, and the agent's sandbox if it has one. */
export interface ScriptPlace {
  modules: string;
  sandbox: Sandbox | null;
}

/**
 * The script as a CommonJS module: `request`, `response` and `environment` at module scope (so
 * the script may change or replace them), its body in an async function (so `await` works at
 * its top level), its console captured, and what it leaves written to output.json.
 */
function wrapperSource(script: string, modules: string): string {
  return `module.paths.unshift(${JSON.stringify(modules)});
const __fs = require('fs');
const __inspect = require('util').inspect;
const __input = JSON.parse(__fs.readFileSync(__dirname + '/input.json', 'utf8'));
var request = __input.request, response = __input.response, environment = __input.variables;
const __logs = [];
console.log = console.info = console.warn = console.error = console.debug = (...a) => {
  if (__logs.length < ${LOG_LINES}) __logs.push(a.map((x) => (typeof x === 'string' ? x : __inspect(x))).join(' '));
};
const __describe = (e) => (e && e.message ? e.message : String(e));
let __rejected = null;
process.on('unhandledRejection', (e) => { if (__rejected === null) __rejected = e; });
const __done = (error) => {
  if (error === null && __rejected !== null) error = 'the script rejected a promise: ' + __describe(__rejected);
  __fs.writeFileSync(__dirname + '/output.json', JSON.stringify({ request, logs: __logs, error }));
  process.exit(0);
};
(async () => {
${script}
})().then(
  // Rejections the script left behind are told apart once its microtasks have run.
  () => setImmediate(() => __done(null)),
  (e) => __done('the script threw: ' + __describe(e)),
);
`;
}

export function runScript(
  script: string,
  input: { request: unknown; response: unknown; variables: Record<string, string> },
  timeoutMs: number,
  place: ScriptPlace,
): Promise<ScriptOutcome> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-script-'));
  place.sandbox?.prepareWorkDir(dir);
  fs.writeFileSync(path.join(dir, 'input.json'), JSON.stringify(input));
  fs.writeFileSync(path.join(dir, 'script.cjs'), wrapperSource(script, place.modules));
  const reads = [...new Set([dir, place.modules, fs.existsSync(place.modules) ? fs.realpathSync(place.modules) : place.modules])];
  const nodeArgs = [
    '--experimental-permission',
    ...reads.map((r) => `--allow-fs-read=${r}`),
    `--allow-fs-write=${dir}`,
    '--no-warnings',
    `--max-old-space-size=${SCRIPT_MEMORY_MB}`,
    path.join(dir, 'script.cjs'),
  ];
  const command: SandboxedCommand = place.sandbox
    ? place.sandbox.command([process.execPath, ...nodeArgs], { workDir: dir, readOnly: reads.slice(1).filter((r) => fs.existsSync(r)) })
    : { file: process.execPath, args: nodeArgs };
  const fallback = (error: string): ScriptOutcome => ({ request: input.request, logs: [], error });

  return new Promise<ScriptOutcome>((resolve) => {
    // The check's variables are the whole environment: the agent's own never reach the script.
    const child = spawnGroup(command, { cwd: dir, env: input.variables, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let timedOut = false;
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < STDERR_LIMIT) stderr += d;
    });
    const kill = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(kill);
      resolve(fallback(`the script could not start: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(kill);
      try {
        resolve(JSON.parse(fs.readFileSync(path.join(dir, 'output.json'), 'utf8')) as ScriptOutcome);
        return;
      } catch {
        /* no outcome written: say why below */
      }
      if (timedOut) resolve(fallback(`the script ran longer than ${timeoutMs} ms`));
      else if (/heap out of memory|Allocation failed/i.test(stderr))
        resolve(fallback(`the script ran out of memory (limit ${SCRIPT_MEMORY_MB} MB)`));
      else if (code === 0) resolve(fallback('the script ended the process before it finished (process.exit?)'));
      else {
        const line = stderr.split('\n').find((l) => /Error/.test(l));
        resolve(fallback(`the script host failed (${signal ?? `exit ${code}`})${line ? `: ${line.trim()}` : ''}`));
      }
    });
  }).finally(() => fs.rmSync(dir, { recursive: true, force: true }));
}
