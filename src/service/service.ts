// Composes the service: database, job queue, scheduler, HTTP server.

import { randomBytes } from 'node:crypto';
import { openDb } from './store/db.js';
import { bootstrapAccount } from './store/accounts.js';
import { JobQueue } from './jobs.js';
import { Scheduler } from './scheduler.js';
import { AgentRegistry } from './agents.js';
import { serviceMetrics } from './metrics.js';
import { HeartbeatMonitor } from './heartbeats.js';
import { VariablesCache } from './variables-cache.js';
import { Sessions } from './sessions.js';
import { SnippetsCache } from './snippets-cache.js';
import { jobPreparer } from './prepare-job.js';
import { buildServer } from './server.js';
import type { ServiceConfig } from './config.js';
import type { Logger } from '../log.js';
import type { Deps } from './deps.js';
import { loadRuntimes } from '../runtimes/catalog.js';
import { DiskArtifactStore } from './artifacts/store.js';

export interface RunningService {
  baseUrl: string;
  accountId: string;
  /** Set only on the start that created the key. */
  createdApiKey: string | null;
  internalAgentToken: string | null;
  close(): Promise<void>;
}

export async function startService(config: ServiceConfig, log: Logger, opts: { builtInAgent?: boolean } = {}): Promise<RunningService> {
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  log.info({ storage: db.kind }, 'database ready');
  const boot = await bootstrapAccount(db, { accountId: config.accountId, apiKey: config.apiKey });
  const metrics = serviceMetrics();
  const variables = new VariablesCache(db);
  await variables.load();
  const snippets = new SnippetsCache();
  await snippets.load(db);
  const jobs = new JobQueue(db, log, metrics, config.leaseSeconds * 1000, config.unclaimedRunTtlMs, jobPreparer(variables, snippets));
  await jobs.load();
  const scheduler = new Scheduler(db, jobs, log, metrics, config.unclaimedRunTtlMs);
  // An agent counts as connected while its polls keep coming.
  const agents = new AgentRegistry(config.pollSeconds * 1000 * 2 + 10_000);
  let baseUrl = config.baseUrl;
  const internalAgentToken = opts.builtInAgent ? `internal_${randomBytes(32).toString('hex')}` : null;
  const heartbeats = new HeartbeatMonitor(db, log, metrics);
  const sessions = new Sessions(db, jobs, scheduler, log, (id) => `${baseUrl}/v2/check-sessions/${id}`);
  const deps: Deps = {
    db,
    log,
    config,
    jobs,
    scheduler,
    agents,
    metrics,
    heartbeats,
    variables,
    snippets,
    sessions,
    internalAgentToken,
    runtimes: loadRuntimes(config.runtimesDir),
    artifacts: new DiskArtifactStore(config.artifactsDir),
    baseUrl: () => baseUrl,
    pingBase: () => config.pingUrl ?? `${baseUrl}/ping`,
  };
  const app = await buildServer(deps);
  const address = await app.listen({ host: config.host, port: config.port });
  if (config.port === 0 && !process.env.OUTPOST_BASE_URL) baseUrl = address;
  await scheduler.start();
  await heartbeats.start();
  log.info({ baseUrl, accountId: boot.accountId }, 'service listening');
  return {
    baseUrl,
    accountId: boot.accountId,
    createdApiKey: boot.createdKey,
    internalAgentToken,
    async close() {
      heartbeats.stop();
      await scheduler.stop();
      await jobs.stop();
      await app.close();
      await db.close();
    },
  };
}
