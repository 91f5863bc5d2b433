// Setup and teardown scripts of API checks run apart from the agent: in a child process with an
// empty environment (the private-location key and the agent's settings are not there), with no
// way to build code from strings (closing the usual escapes out of a vm context), a heap limit
// and a time limit. A script that throws, loops or eats memory fails its run with the cause.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';

// Beside this file once built; when this module runs as TypeScript source (the unit tests), the
// built host in dist/ is the one to start.
const beside = fileURLToPath(new URL('./script-host.js', import.meta.url));
const HOST = fs.existsSync(beside) ? beside : fileURLToPath(new URL('../../dist/checks/script-host.js', import.meta.url));
export const SCRIPT_MEMORY_MB = 64;

export interface ScriptOutcome {
  request: unknown;
  logs: string[];
  error: string | null;
}

export function runScript(
  script: string,
  input: { request: unknown; response: unknown; variables: Record<string, string> },
  timeoutMs: number,
): Promise<ScriptOutcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--disallow-code-generation-from-strings', `--max-old-space-size=${SCRIPT_MEMORY_MB}`, HOST], {
      env: {},
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let settled = false;
    const finish = (o: ScriptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(kill);
      resolve(o);
    };
    // The vm timeout stops a busy script; this stops everything else (a hung host, a huge heap).
    const kill = setTimeout(() => {
      child.kill('SIGKILL');
      finish({ request: input.request, logs: [], error: `the script ran longer than ${timeoutMs} ms` });
    }, timeoutMs + 2000);
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d.slice(0, 10_000)));
    child.on('error', (e) => finish({ request: input.request, logs: [], error: `the script could not start: ${e.message}` }));
    child.on('exit', (code, signal) => {
      if (code === 0 && out) {
        try {
          return finish(JSON.parse(out) as ScriptOutcome);
        } catch {
          /* fall through */
        }
      }
      const oom = /heap out of memory|Allocation failed/i.test(err);
      finish({
        request: input.request,
        logs: [],
        error: oom ? `the script ran out of memory (limit ${SCRIPT_MEMORY_MB} MB)` : `the script host failed (${signal ?? `exit ${code}`})`,
      });
    });
    child.stdin.end(JSON.stringify({ script, ...input, timeoutMs }));
  });
}
