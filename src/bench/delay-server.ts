// Starts the timing benchmark's target, src/bench/delay-server.c: an HTTP server on 127.0.0.1
// that waits 20 ms before the first byte and 20 ms before the last, and says what delays it
// really applied, timed from the request's arrival in the kernel. Benchmark code, so it is not
// built by npm install nor shipped: it is compiled here on first use (cc), once per source.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface Applied {
  firstByte: number;
  download: number;
}

export interface DelayServer {
  port: number;
  /** What it applied to each request (by path) since the last call. */
  applied(): Promise<Record<string, Applied>>;
  stop(): void;
}

const SOURCE = fileURLToPath(new URL('../../src/bench/delay-server.c', import.meta.url));
const NATIVE = fileURLToPath(new URL('../../src/native', import.meta.url));

/** The compiled server, built if this source has not been built yet. */
function delayServerBinary(): string {
  const hash = createHash('sha256')
    .update(fs.readFileSync(SOURCE))
    .update(fs.readFileSync(path.join(NATIVE, 'stamps.h')))
    .digest('hex')
    .slice(0, 16);
  const bin = path.join(os.tmpdir(), `outpost-delay-server-${hash}`);
  if (!fs.existsSync(bin)) {
    const tmp = `${bin}.${process.pid}`;
    execFileSync('cc', ['-O2', '-Wall', '-Wextra', '-I', NATIVE, '-o', tmp, SOURCE], { stdio: 'inherit' });
    fs.renameSync(tmp, bin);
  }
  return bin;
}

export async function startDelayServer(): Promise<DelayServer> {
  const child = spawn(delayServerBinary(), [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const waiting: { resolve: (line: string) => void; reject: (err: Error) => void }[] = [];
  lines.on('line', (line) => waiting.shift()?.resolve(line));
  const failAll = (err: Error) => {
    for (const w of waiting.splice(0)) w.reject(err);
  };
  child.once('error', failAll);
  child.once('exit', (code) => failAll(new Error(`delay_server exited (${code})`)));
  const next = () => new Promise<string>((resolve, reject) => waiting.push({ resolve, reject }));
  const port = Number((await next()).split(' ')[1]);
  return {
    port,
    async applied() {
      const answer = next();
      child.stdin.write('applied\n');
      return JSON.parse(await answer) as Record<string, Applied>;
    },
    stop() {
      child.stdin.end();
      child.kill();
    },
  };
}
