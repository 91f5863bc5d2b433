import { int, str, oneOf, url, ConfigError } from '../config.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from '../log.js';
import path from 'node:path';
import { UNCLAIMED_RUN_TTL_MS } from '../domain/limits.js';
import { DEFAULT_RUNTIMES_DIR } from '../runtimes/catalog.js';
import type { NotifierConfig } from './notifier.js';

export interface ServiceConfig {
  host: string;
  port: number;
  baseUrl: string;
  dataDir: string;
  databaseUrl?: string;
  apiKey?: string;
  accountId?: string;
  logLevel: LogLevel;
  logFormat: LogFormat;
  /** How long an agent holds a job before it is handed to another agent. */
  leaseSeconds: number;
  /** Longest a job long-poll waits before answering empty. */
  pollSeconds: number;
  bodyLimitBytes: number;
  /** Failed authentications an address may make in a minute before it is answered 429. */
  authFailuresPerMinute: number;
  apiRatePerSecond: number;
  /** A due run no agent leases within this window is dropped (the spec's 6 minutes). */
  unclaimedRunTtlMs: number;
  /** Base of heartbeat ping addresses; default: the service's base URL + /ping. */
  pingUrl: string | null;
  /** Where runtime records (runtimes/<id>/runtime.json) are read from. */
  runtimesDir: string;
  /** Where artifacts of browser runs are kept (default: <data dir>/artifacts). */
  artifactsDir: string;
  /** Judge results for alerts at all (OUTPOST_ALERTS=off: results only, no notifications). */
  alerts: boolean;
  /** How alert notifications reach their providers. */
  notify: NotifierConfig;
}

export function serviceConfig(env: Record<string, string | undefined> = process.env): ServiceConfig {
  const host = str(env, 'HOST', '127.0.0.1');
  const port = int(env, 'PORT', 3000, 0, 65535);
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl))
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  const accountId = env.OUTPOST_ACCOUNT_ID || undefined;
  if (accountId && !/^[A-Za-z0-9-]{1,64}$/.test(accountId))
    throw new ConfigError('OUTPOST_ACCOUNT_ID must be 1 to 64 letters, digits or dashes');
  const apiKey = env.OUTPOST_API_KEY || undefined;
  if (apiKey && apiKey.length < 16) throw new ConfigError('OUTPOST_API_KEY must be at least 16 characters');
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    host,
    port,
    baseUrl: url(env, 'OUTPOST_BASE_URL', `http://${shownHost}:${port}`),
    dataDir: str(env, 'OUTPOST_DATA_DIR', './data'),
    databaseUrl,
    apiKey,
    accountId,
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'INFO'),
    logFormat: oneOf(env, 'LOG_FORMAT', LOG_FORMATS, 'auto'),
    leaseSeconds: int(env, 'OUTPOST_LEASE_SECONDS', 300, 1, 3600),
    pollSeconds: int(env, 'OUTPOST_POLL_SECONDS', 25, 1, 120),
    bodyLimitBytes: int(env, 'OUTPOST_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 150 * 1024 * 1024),
    authFailuresPerMinute: int(env, 'OUTPOST_AUTH_FAILURES_PER_MINUTE', 30, 1, 100_000),
    apiRatePerSecond: int(env, 'OUTPOST_API_RATE_LIMIT_PER_SECOND', 100, 0, 1_000_000),
    pingUrl: env.PING_URL ? url(env, 'PING_URL', '') : null,
    runtimesDir: str(env, 'OUTPOST_RUNTIMES_DIR', DEFAULT_RUNTIMES_DIR),
    artifactsDir: str(env, 'OUTPOST_ARTIFACTS_DIR', path.join(str(env, 'OUTPOST_DATA_DIR', './data'), 'artifacts')),
    unclaimedRunTtlMs: int(env, 'OUTPOST_UNCLAIMED_RUN_TTL_SECONDS', UNCLAIMED_RUN_TTL_MS / 1000, 1, 3600) * 1000,
    alerts: oneOf(env, 'OUTPOST_ALERTS', ['on', 'off'] as const, 'on') === 'on',
    notify: {
      smtpUrl: env.OUTPOST_SMTP_URL ? url(env, 'OUTPOST_SMTP_URL', '', ['smtp:', 'smtps:']) : null,
      smtpFrom: str(env, 'OUTPOST_SMTP_FROM', 'Outpost <outpost@localhost>'),
      pagerdutyUrl: url(env, 'OUTPOST_PAGERDUTY_URL', 'https://events.pagerduty.com/v2/enqueue'),
      opsgenieUrl: {
        US: url(env, 'OUTPOST_OPSGENIE_URL', 'https://api.opsgenie.com'),
        EU: url(env, 'OUTPOST_OPSGENIE_EU_URL', 'https://api.eu.opsgenie.com'),
      },
      smsUrl: env.OUTPOST_SMS_URL ? url(env, 'OUTPOST_SMS_URL', '') : null,
      callUrl: env.OUTPOST_CALL_URL ? url(env, 'OUTPOST_CALL_URL', '') : null,
      smsFrom: str(env, 'OUTPOST_SMS_FROM', 'Outpost'),
      timeoutMs: int(env, 'OUTPOST_NOTIFY_TIMEOUT_SECONDS', 10, 1, 120) * 1000,
      retryMs: int(env, 'OUTPOST_NOTIFY_RETRY_SECONDS', 20, 1, 3600) * 1000,
      attempts: int(env, 'OUTPOST_NOTIFY_ATTEMPTS', 5, 1, 20),
    },
  };
}
