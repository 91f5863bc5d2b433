import type { KeyRateLimit } from './rate-limit.js';
import type { Store } from './store/index.js';
import type { Logger } from '../log.js';
import type { ServiceConfig } from './config.js';
import type { JobQueue } from './jobs.js';
import type { Scheduler } from './scheduler.js';
import type { CheckGroups } from './check-groups.js';
import type { Maintenance } from './maintenance.js';
import type { AgentRegistry } from './agents.js';
import type { ServiceMetrics } from './metrics.js';
import type { HeartbeatMonitor } from './heartbeats.js';
import type { VariablesCache } from './variables-cache.js';
import type { Sessions } from './sessions.js';
import type { SnippetsCache } from './snippets-cache.js';
import type { RuntimeRecord } from '../domain/runtimes.js';
import type { ArtifactStore } from './artifacts/store.js';
import type { AuthFailures } from './auth-failures.js';
import type { Notifier } from './notifier.js';

/** What route plugins are handed: the service's parts, nothing global. */
export interface Deps {
  store: Store;
  /** Sends what was stored to send; woken after a write that stores some. */
  notifier: Pick<Notifier, 'wake'>;
  log: Logger;
  config: ServiceConfig;
  jobs: JobQueue;
  scheduler: Scheduler;
  /** Check groups in memory, and the effective check of a member. */
  groups: CheckGroups;
  /** Maintenance windows in memory: what they pause and silence now. */
  maintenance: Maintenance;
  agents: AgentRegistry;
  metrics: ServiceMetrics;
  /** Base URL as reachable by clients (known after listen when PORT=0). */
  baseUrl: () => string;
  heartbeats: HeartbeatMonitor;
  variables: VariablesCache;
  sessions: Sessions;
  snippets: SnippetsCache;
  /** Where heartbeat pings go: PING_URL, or the base URL + /ping. */
  pingBase: () => string;
  artifacts: ArtifactStore;
  /** The runtimes GET /v1/runtimes lists and checks may pin. */
  runtimes: RuntimeRecord[];
  /** Addresses that failed to authenticate, API and agent keys alike. */
  authFailures: AuthFailures;
  rateLimit: KeyRateLimit;
  /** The built-in agent's credential, when `outpost start` runs one. */
  internalAgentToken: string | null;
}
