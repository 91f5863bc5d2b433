// Starts the timing benchmark's target, src/native/delay-server.c (built with the addon): an
// HTTP server on 127.0.0.1 that waits 20 ms before the first byte and 20 ms before the last,
// and says what delays it really applied, timed from the request's arrival in the kernel.
import { spawn } from 'node:child_process';
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

export const delayServerPath = fileURLToPath(new URL('../../src/native/build/Release/delay_server', import.meta.url));

export async function startDelayServer(): Promise<DelayServer> {
  const child = spawn(delayServerPath, [], { stdio: ['pipe', 'pipe', 'inherit'] });
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
