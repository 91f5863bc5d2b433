// Runs one setup or teardown script, in a child process of its own (see script-sandbox.ts).
// Reads {script, request, response, variables, timeoutMs} as JSON on stdin, writes
// {request, logs, error} on stdout. The script sees `request`, `response`, `environment` (the
// check's variables) and `console`; no process, no require, no file system.

import vm from 'node:vm';

interface Input {
  script: string;
  request: unknown;
  response: unknown;
  variables: Record<string, string>;
  timeoutMs: number;
}

// A promise the script rejects and leaves unhandled fails the run, its logs kept (unhandled, it
// would end this process before it could report).
const rejections: unknown[] = [];
process.on('unhandledRejection', (reason) => rejections.push(reason));
const describe = (e: unknown) => ((e as Error)?.message ? (e as Error).message : String(e));

let raw = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => (raw += d));
process.stdin.on('end', () => {
  const input = JSON.parse(raw) as Input;
  const logs: string[] = [];
  // Everything the script touches is made inside its own context from JSON, so no object of
  // this realm (and no constructor leading back to it) is within reach.
  const context = vm.createContext(Object.create(null), { codeGeneration: { strings: false, wasm: false } });
  vm.runInContext(
    `globalThis.request = JSON.parse(${JSON.stringify(JSON.stringify(input.request))});
     globalThis.response = JSON.parse(${JSON.stringify(JSON.stringify(input.response))});
     globalThis.environment = JSON.parse(${JSON.stringify(JSON.stringify(input.variables))});
     globalThis.__logs = [];
     globalThis.console = { log: (...a) => __logs.push(a.map(String).join(' ')) };
     console.info = console.warn = console.error = console.debug = console.log;`,
    context,
  );
  let error: string | null = null;
  try {
    vm.runInContext(input.script, context, { timeout: input.timeoutMs, filename: 'script.js' });
  } catch (err) {
    const e = err as Error & { code?: string };
    error =
      e && e.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT'
        ? `the script ran longer than ${input.timeoutMs} ms`
        : `the script threw: ${describe(e)}`;
  }
  // Rejections are told apart from handled promises once the script's microtasks have run.
  setImmediate(() => report(context, logs, error));
});

function report(context: vm.Context, logs: string[], thrown: string | null): void {
  const error = thrown ?? (rejections.length > 0 ? `the script rejected a promise: ${describe(rejections[0])}` : null);
  const out = vm.runInContext('JSON.stringify({ request: globalThis.request, logs: globalThis.__logs })', context) as string;
  const parsed = JSON.parse(out) as { request: unknown; logs: string[] };
  logs.push(...parsed.logs.slice(0, 100));
  process.stdout.write(JSON.stringify({ request: parsed.request, logs, error }));
}
