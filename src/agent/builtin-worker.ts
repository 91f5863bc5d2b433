// Entry of the built-in agent's worker thread (src/agent/builtin.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { Agent } from './agent.js';
import { agentConfig } from './config.js';
import { createLogger, type LogFormat, type LogLevel } from '../log.js';
import type { WorkerMessage } from './builtin.js';

const data = workerData as { env: Record<string, string | undefined>; spoolDir: string; logLevel: LogLevel; logFormat: LogFormat };
const port = parentPort!;
const send = (m: WorkerMessage) => port.postMessage(m);

const config = agentConfig(data.env);
const agent = new Agent(
  { ...config, healthServer: false, spoolDir: data.spoolDir },
  createLogger('outpost-agent', data.logLevel, data.logFormat),
);
await agent.start();
send({ type: 'started' });
void agent.fatal.then((err) => send({ type: 'fatal', message: err.message }));
port.on('message', (m: unknown) => {
  if (m !== 'stop') return;
  void agent.stop().finally(() => {
    send({ type: 'stopped' });
    port.close();
  });
});
