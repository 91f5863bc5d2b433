// The built-in agent of `outpost start` runs in a worker thread of its own: whatever a check does
// to its event loop (a pattern, a parse, a bug), the API and the scheduler keep answering.
import { Worker } from 'node:worker_threads';
import { workerScript } from '../worker-script.js';
import type { LogFormat, LogLevel } from '../log.js';

export interface BuiltInAgentOptions {
  /** The agent's environment: what `outpost agent` would read, plus the service's URL and token. */
  env: Record<string, string | undefined>;
  spoolDir: string;
  logLevel: LogLevel;
  logFormat: LogFormat;
  /** How long a stop waits for the agent's own shutdown before ending the thread. */
  stopTimeoutMs: number;
}

export type WorkerMessage = { type: 'started' } | { type: 'fatal'; message: string } | { type: 'stopped' };

export interface BuiltInAgent {
  stop(): Promise<void>;
  /** Settles with the reason the agent gave up, if it does. */
  fatal: Promise<string>;
}

export async function startBuiltInAgent(opts: BuiltInAgentOptions): Promise<BuiltInAgent> {
  // A worker's standard output is a pipe through this thread: decide 'auto' here, on the terminal.
  const logFormat = opts.logFormat === 'auto' ? (process.stdout.isTTY ? 'pretty' : 'json') : opts.logFormat;
  const worker = new Worker(workerScript(import.meta.url, './builtin-worker.js'), {
    workerData: { env: opts.env, spoolDir: opts.spoolDir, logLevel: opts.logLevel, logFormat },
  });
  let fatal!: (reason: string) => void;
  const fatalP = new Promise<string>((r) => (fatal = r));
  const exited = new Promise<void>((r) => worker.once('exit', () => r()));
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'started') resolve();
      else if (m.type === 'fatal') fatal(m.message);
    });
    worker.once('error', (err) => {
      reject(err);
      fatal(err.message);
    });
    void exited.then(() => reject(new Error('the built-in agent stopped before it started')));
  });
  return {
    fatal: fatalP,
    async stop() {
      worker.postMessage('stop');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), opts.stopTimeoutMs)));
      if ((await Promise.race([exited, late])) === 'late') await worker.terminate();
      clearTimeout(timer);
    },
  };
}
