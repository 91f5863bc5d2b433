import os from 'node:os';
import path from 'node:path';
import { int, str, oneOf, url, ConfigError } from '../config.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from '../log.js';
import { DEFAULT_RUNTIMES_DIR } from '../runtimes/catalog.js';
import { parseCidr } from '../domain/target-guard.js';
import { SANDBOX_MODES, type SandboxMode } from '../checks/sandbox.js';

/** One browser slot per 1.5 GB of memory, and no more than there are cores. */
function defaultBrowserSlots(): number {
  return Math.max(1, Math.min(os.cpus().length, Math.floor(os.totalmem() / (1.5 * 1024 ** 3))));
}

export const PROFILES = ['full', 'uptime'] as const;

export interface AgentConfig {
  apiKey: string;
  serviceUrl: string;
  concurrency: number;
  healthPort: number;
  healthHost: string | undefined;
  externalObservability: boolean;
  logLevel: LogLevel;
  logFormat: LogFormat;
  shutdownGraceMs: number;
  spoolDir: string;
  profile: (typeof PROFILES)[number];
  /** TCP checks resolve through the OS (getaddrinfo) rather than asking DNS directly. */
  useOsDnsResolver: boolean;
  /** Serve the health server at all (the built-in agent of `outpost start` does not). */
  healthServer: boolean;
  /** Browser jobs at once (each Chromium page costs about 1.5 GB); never above concurrency. */
  browserConcurrency: number;
  /** Runtimes this agent may carry (OUTPOST_RUNTIMES); null: every installed one. */
  runtimes: string[] | null;
  runtimesDir: string;
  chromiumPath: string;
  /** Sandbox for user code: auto (when the host allows), required, off (OUTPOST_SANDBOX). */
  sandbox: SandboxMode;
  /** Refuse targets at loopback, link-local and private addresses (OUTPOST_BLOCK_PRIVATE_TARGETS)… */
  blockPrivateTargets: boolean;
  /** …except these CIDR ranges (OUTPOST_PRIVATE_TARGETS_ALLOWED). */
  privateTargetsAllowed: string[];
}

export function agentConfig(env: Record<string, string | undefined> = process.env): AgentConfig {
  const apiKey = env.API_KEY;
  if (!apiKey) {
    throw new ConfigError(
      'API_KEY is required: set it to a private-location key (create one with POST /v1/private-locations or POST /v1/private-locations/{id}/keys)',
    );
  }
  if (/\s/.test(apiKey)) throw new ConfigError('API_KEY must not contain white space');
  const concurrency = int(env, 'JOB_CONCURRENCY', 1, 1, 1000);
  return {
    apiKey,
    serviceUrl: url(env, 'OUTPOST_URL', 'http://127.0.0.1:3000'),
    concurrency,
    healthPort: int(env, 'AGENT_HEALTH_PORT', 8081, 0, 65535),
    healthHost: env.AGENT_HEALTH_HOST || undefined,
    externalObservability: oneOf(env, 'EXTERNAL_OBSERVABILITY', ['on', 'off'] as const, 'on') === 'on',
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'INFO'),
    logFormat: oneOf(env, 'LOG_FORMAT', LOG_FORMATS, 'auto'),
    shutdownGraceMs: int(env, 'OUTPOST_SHUTDOWN_GRACE_SECONDS', 30, 0, 3600) * 1000,
    spoolDir: str(env, 'OUTPOST_SPOOL_DIR', path.join(os.homedir(), '.outpost-agent', 'spool')),
    profile: oneOf(env, 'OUTPOST_AGENT_PROFILE', PROFILES, 'full'),
    useOsDnsResolver: oneOf(env, 'USE_OS_DNS_RESOLVER', ['true', 'false'] as const, 'false') === 'true',
    healthServer: true,
    browserConcurrency: Math.min(concurrency, int(env, 'BROWSER_CONCURRENCY', defaultBrowserSlots(), 1, 64)),
    runtimes: env.OUTPOST_RUNTIMES ? env.OUTPOST_RUNTIMES.split(/[\s,]+/).filter(Boolean) : null,
    runtimesDir: str(env, 'OUTPOST_RUNTIMES_DIR', DEFAULT_RUNTIMES_DIR),
    chromiumPath: str(env, 'CHROMIUM_PATH', '/usr/bin/chromium'),
    sandbox: oneOf(env, 'OUTPOST_SANDBOX', SANDBOX_MODES, 'auto'),
    blockPrivateTargets: oneOf(env, 'OUTPOST_BLOCK_PRIVATE_TARGETS', ['true', 'false'] as const, 'false') === 'true',
    privateTargetsAllowed: cidrs(env, 'OUTPOST_PRIVATE_TARGETS_ALLOWED'),
  };
}

function cidrs(env: Record<string, string | undefined>, name: string): string[] {
  const list = (env[name] ?? '').split(/[\s,]+/).filter(Boolean);
  const bad = list.find((c) => parseCidr(c) === null);
  if (bad !== undefined)
    throw new ConfigError(`${name} must list addresses or CIDR ranges (10.1.0.0/16, fd00::/8); got ${JSON.stringify(bad)}`);
  return list;
}
