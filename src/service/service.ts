// Composes the service: database, job queue, scheduler, HTTP server.

import { AlertEngine } from './alerting.js';
import { Notifier } from './notifier.js';
import { alertOutbox, subscriberOutbox } from './outboxes.js';
import { KeyRateLimit } from './rate-limit.js';
import { randomBytes } from 'node:crypto';
import { openStore } from './store/index.js';
import { JobQueue } from './jobs.js';
import { Scheduler } from './scheduler.js';
import { CheckGroups } from './check-groups.js';
import { Maintenance } from './maintenance.js';
import type { CheckRow } from './store/checks.js';
import { AgentRegistry } from './agents.js';
import { serviceMetrics } from './metrics.js';
import { HeartbeatMonitor } from './heartbeats.js';
import { VariablesCache } from './variables-cache.js';
import { Sessions } from './sessions.js';
import { AuthFailures } from './auth-failures.js';
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
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  log.info({ storage: store.kind }, 'database ready');
  const boot = await store.accounts.bootstrap({ accountId: config.accountId, apiKey: config.apiKey });
  const metrics = serviceMetrics();
  const variables = new VariablesCache(store.variables);
  await variables.load();
  const snippets = new SnippetsCache();
  await snippets.load(store.snippets);
  const groups = new CheckGroups(store);
  await groups.load();
  const effective = (row: CheckRow) => groups.effective(row);
  const jobs = new JobQueue(store, log, metrics, {
    leaseMs: config.leaseSeconds * 1000,
    unclaimedTtlMs: config.unclaimedRunTtlMs,
    prepare: jobPreparer(variables, snippets),
    effective,
  });
  await jobs.load();
  const scheduler = new Scheduler(store, jobs, log, metrics, config.unclaimedRunTtlMs, undefined, effective);
  jobs.retryPlan = (checkId) => scheduler.retryPlan(checkId);
  const maintenance = new Maintenance(store.maintenanceWindows);
  await maintenance.load();
  const matched = (row: CheckRow) => ({ tags: row.config.tags ?? [], groupTags: groups.tagsOf(row) });
  scheduler.paused = (row, at) => maintenance.pauses(row.account_id, at, matched(row));
  // An agent counts as connected while its polls keep coming.
  const agents = new AgentRegistry(config.pollSeconds * 1000 * 2 + 10_000);
  let baseUrl = config.baseUrl;
  const internalAgentToken = opts.builtInAgent ? `internal_${randomBytes(32).toString('hex')}` : null;
  const heartbeats = new HeartbeatMonitor(store, log, metrics);
  const sessions = new Sessions(store.sessions, jobs, scheduler, log, (id) => `${baseUrl}/v2/check-sessions/${id}`);
  await sessions.recover();
  // What was stored to send (alert notifications, subscriber emails) goes out from its outbox.
  const notifier = new Notifier(
    [alertOutbox(store, config.notify), subscriberOutbox(store, config.notify, () => baseUrl)],
    log,
    config.notify,
  );
  const deps: Deps = {
    store,
    notifier,
    log,
    config,
    jobs,
    scheduler,
    groups,
    maintenance,
    agents,
    metrics,
    heartbeats,
    variables,
    snippets,
    sessions,
    internalAgentToken,
    authFailures: new AuthFailures(config.authFailuresPerMinute),
    rateLimit: new KeyRateLimit(config.apiRatePerSecond),
    runtimes: loadRuntimes(config.runtimesDir),
    artifacts: new DiskArtifactStore(config.artifactsDir),
    baseUrl: () => baseUrl,
    pingBase: () => config.pingUrl ?? `${baseUrl}/ping`,
  };
  // Alerting: FINAL results judged as they are stored; notifications sent from the outbox.
  const alerts = new AlertEngine(
    store,
    log,
    (checkId, resultId) => `${baseUrl}/v1/check-results/${checkId}/${resultId}`,
    () => notifier.wake(),
  );
  alerts.groups = groups;
  alerts.silenced = (row, t) => maintenance.silences(row.account_id, t, matched(row));
  await alerts.load();
  if (config.alerts) {
    jobs.alerts = alerts;
    heartbeats.alerts = alerts;
  }
  const app = await buildServer(deps);
  const address = await app.listen({ host: config.host, port: config.port });
  if (config.port === 0 && !process.env.OUTPOST_BASE_URL) baseUrl = address;
  await scheduler.start();
  await heartbeats.start();
  notifier.wake(); // what a previous run stored and did not send
  log.info({ baseUrl, accountId: boot.accountId }, 'service listening');
  return {
    baseUrl,
    accountId: boot.accountId,
    createdApiKey: boot.createdKey,
    internalAgentToken,
    async close() {
      alerts.stop();
      await notifier.stop();
      heartbeats.stop();
      await scheduler.stop();
      await jobs.stop();
      await app.close();
      await store.close();
    },
  };
}
