#!/usr/bin/env -S node --single-threaded-gc --liftoff-only
// Single-threaded GC: V8's parallel scavenge and concurrent marking run on helper threads that,
// on the two or so cores an agent or a small service gets, cost more CPU than they save (an API
// check's collection work fell from 0.072 to 0.034 CPU-ms a run). The heap is tens of MB, so
// pauses stay short. Liftoff only: undici parses HTTP with llhttp compiled to WebAssembly, and
// V8's optimising tier-up of that module took ~35 MB for a moment after start (the agent's peak
// 103 → 67 MB, settled RSS ~60 MB); the baseline code parses as fast for these small messages
// (1,000 URL checks/s: no difference in CPU). `npm start`, `outpost …`, the images and the
// benchmarks start through here.
// outpost start | service | agent: read the environment, start the parts.

import { ConfigError } from './config.js';
import { createLogger } from './log.js';
import { VERSION } from './version.js';

const USAGE = `outpost ${VERSION}

Usage:
  outpost start     service and a built-in agent for the data-center locations (embedded database)
  outpost service   the REST API, scheduler and job queue
  outpost agent     a private-location agent (needs API_KEY, the private-location key)

Configuration is read from the environment; see README.md.`;

function onSignals(stop: () => Promise<void>): void {
  let stopping = false;
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.on(sig, () => {
      if (stopping) return;
      stopping = true;
      stop().then(
        () => process.exit(0),
        (err) => {
          console.error(err);
          process.exit(1);
        },
      );
    });
  }
}

async function runService(withAgent: boolean): Promise<void> {
  const { serviceConfig } = await import('./service/config.js');
  const { startService } = await import('./service/service.js');
  const config = serviceConfig();
  const log = createLogger('outpost-service', config.logLevel, config.logFormat);
  const svc = await startService(config, log, { builtInAgent: withAgent });
  let agent: { stop(): Promise<void> } | null = null;
  if (withAgent) {
    const { startBuiltInAgent } = await import('./agent/builtin.js');
    const { agentConfig } = await import('./agent/config.js');
    const env = {
      ...process.env,
      JOB_CONCURRENCY: process.env.JOB_CONCURRENCY || '10',
      API_KEY: svc.internalAgentToken!,
      OUTPOST_URL: svc.baseUrl,
    };
    // Read here too, so a bad setting stops `outpost start` with its one-line message.
    const cfg = agentConfig(env);
    const builtIn = await startBuiltInAgent({
      env,
      spoolDir: `${config.dataDir}/agent-spool`,
      logLevel: cfg.logLevel,
      logFormat: cfg.logFormat,
      stopTimeoutMs: cfg.shutdownGraceMs + 5000,
    });
    void builtIn.fatal.then((reason) => log.error({ reason }, 'the built-in agent stopped'));
    agent = builtIn;
  }
  const lines = [
    '',
    `Outpost ${VERSION} is running.`,
    `  Base URL:   ${svc.baseUrl}`,
    `  Account id: ${svc.accountId}`,
    svc.createdApiKey
      ? `  API key:    ${svc.createdApiKey}   (shown once: it is stored hashed; pin one with OUTPOST_API_KEY)`
      : `  API key:    the one printed on first start, or OUTPOST_API_KEY`,
    withAgent ? '  Built-in agent: serving the data-center locations' : '',
    '',
  ];
  process.stdout.write(`${lines.filter((l, i) => l !== '' || i === 0 || i === lines.length - 1).join('\n')}\n`);
  onSignals(async () => {
    await agent?.stop();
    await svc.close();
  });
}

async function runAgent(): Promise<void> {
  const { Agent } = await import('./agent/agent.js');
  const { agentConfig } = await import('./agent/config.js');
  const config = agentConfig();
  const log = createLogger('outpost-agent', config.logLevel, config.logFormat);
  const agent = new Agent(config, log);
  await agent.start();
  onSignals(() => agent.stop());
  // Nothing an agent retries can fix this: exit, so the operator (or Kubernetes) sees it.
  void agent.fatal.then(async () => {
    await agent.stop();
    process.exit(1);
  });
}

async function main(): Promise<void> {
  const cmd = process.argv[2];
  switch (cmd) {
    case 'start':
      return runService(true);
    case 'service':
      return runService(false);
    case 'agent':
      return runAgent();
    case '--version':
    case '-v':
      console.log(VERSION);
      return;
    default:
      console.log(USAGE);
      if (cmd && cmd !== 'help' && cmd !== '--help' && cmd !== '-h') process.exitCode = 2;
  }
}

main().catch((err) => {
  // Problems the operator fixes (settings, a data directory this version cannot use): one line.
  if (err instanceof ConfigError || err?.code === 'OUTPOST_STORE_REFUSED') {
    console.error(`outpost: ${err.message}`);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
