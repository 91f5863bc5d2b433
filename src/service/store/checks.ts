import type { CheckAlerting } from '../check-alerting.js';
import { creationOrder, type Sql } from './db.js';
import type { ResultFolds } from './result-folds.js';
import { jobId, type Job, type JobCheck, type CheckCode } from '../../domain/run.js';
import { RUNTIME_CHECK_TYPES } from '../../domain/check-types/index.js';
import { showVariables, type CheckVariable } from '../../domain/check-variables.js';
import { DEFAULT_RUNTIME_ID, RUNTIME_CHECK_TIMEOUT_MS } from '../../domain/limits.js';

/** The check as the API knows it, minus id, type and timestamps (those are columns). */
export interface CheckConfig {
  name: string;
  activated: boolean;
  muted: boolean;
  doubleCheck: boolean;
  shouldFail: boolean;
  locations: string[];
  privateLocations: string[] | null;
  tags: string[];
  alertSettings: Record<string, unknown>;
  useGlobalAlertSettings: boolean;
  groupId: number | null;
  groupOrder: number | null;
  runtimeId: string | null;
  alertChannelSubscriptions: unknown[];
  retryStrategy: Record<string, unknown> | null;
  triggerIncident: Record<string, unknown> | null;
  runParallel: boolean;
  description: string | null;
  frequency: number;
  frequencyOffset: number | null;
  degradedResponseTime: number | null;
  maxResponseTime: number | null;
  /** Absent for types without one (browser, multi-step, Playwright checks). */
  request?: Record<string, unknown>;
  [extra: string]: unknown;
}

export interface CheckRow {
  id: string;
  account_id: string;
  check_type: string;
  name: string;
  activated: boolean;
  config: CheckConfig;
  created_at: Date;
  updated_at: Date | null;
}

/** The check as the API shows it (secret variables without their values); heartbeats get their ping address under `pingBase`. */
export function toApi(row: CheckRow, pingBase?: string, alerting?: CheckAlerting) {
  const { groupScripts: _g, ...config } = row.config;
  const heartbeat = config.heartbeat as Record<string, unknown> | undefined;
  return {
    id: row.id,
    checkType: row.check_type,
    ...config,
    ...(config.environmentVariables ? { environmentVariables: showVariables(config.environmentVariables as CheckVariable[]) } : {}),
    ...(heartbeat && pingBase ? { heartbeat: { ...heartbeat, pingUrl: `${pingBase}/${heartbeat.pingToken}` } } : {}),
    alertChannelSubscriptions: alerting?.alertChannelSubscriptions ?? [],
    alertChannels: alerting?.alertChannels ?? { email: [], webhook: [], slack: [], sms: [] },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at ? row.updated_at.toISOString() : null,
  };
}

export function jobCheck(row: CheckRow): JobCheck {
  const c = row.config;
  const out: JobCheck = {
    name: c.name,
    request: c.request ?? {},
    degradedResponseTime: c.degradedResponseTime,
    maxResponseTime: c.maxResponseTime,
    shouldFail: c.shouldFail,
  };
  if (Array.isArray(c.environmentVariables) && c.environmentVariables.length)
    out.environmentVariables = c.environmentVariables as JobCheck['environmentVariables'];
  for (const k of ['setupSnippetId', 'tearDownSnippetId', 'localSetupScript', 'localTearDownScript'] as const) {
    if (c[k] !== null && c[k] !== undefined && c[k] !== '') Object.assign(out, { [k]: c[k] });
  }
  if (c.groupScripts) out.groupScripts = c.groupScripts as JobCheck['groupScripts'];
  if (RUNTIME_CHECK_TYPES.has(row.check_type)) {
    const code: CheckCode = {};
    for (const k of ['script', 'dependencies', 'playwrightConfigPath', 'pwProjects', 'pwTags', 'artifacts'] as const) {
      if (c[k] !== null && c[k] !== undefined) (code as Record<string, unknown>)[k] = c[k];
    }
    out.code = code;
  }
  return out;
}

/** The agent gives a run this long; past maxResponseTime the run has failed anyway. */
export function jobTimeoutMs(row: CheckRow): number {
  const limit = RUNTIME_CHECK_TIMEOUT_MS[row.check_type];
  if (limit) return limit;
  return Math.max(1000, row.config.maxResponseTime ?? 5000);
}

/** The runtime a run uses: the check's own, else the account's default. */
export function runtimeOf(row: CheckRow): string | null {
  if (!RUNTIME_CHECK_TYPES.has(row.check_type)) return row.config.runtimeId ?? null;
  return row.config.runtimeId ?? DEFAULT_RUNTIME_ID;
}

/**
 * One due run of a check in one location. The id makes the run unique, so it cannot be queued
 * twice. check: the row's jobCheck, when the caller keeps one for every run of the row.
 */
export function jobFor(row: CheckRow, dueAt: number, location: string, sessionId?: string, check = jobCheck(row)): Job {
  return {
    id: jobId(row.id, dueAt, location, sessionId),
    ...(sessionId ? { sessionId } : {}),
    checkId: row.id,
    checkType: row.check_type,
    location,
    dueAt,
    timeoutMs: jobTimeoutMs(row),
    check,
    runtimeId: runtimeOf(row),
  };
}

export class CheckRepository {
  /** folds: the embedded store's deferred statuses and days (null on PostgreSQL). */
  constructor(
    private readonly db: Sql,
    private readonly folds: ResultFolds | null = null,
  ) {}

  /** created_at: the database's clock unless given (a test's clock). */
  async insert(row: Omit<CheckRow, 'created_at' | 'updated_at'> & { created_at?: Date }): Promise<CheckRow> {
    const params = [row.id, row.account_id, row.check_type, row.config.name, row.config.activated, JSON.stringify(row.config)];
    const rows = await this.db.query<CheckRow>(
      row.created_at
        ? 'INSERT INTO checks (id, account_id, check_type, name, activated, config, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *'
        : 'INSERT INTO checks (id, account_id, check_type, name, activated, config) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *',
      row.created_at ? [...params, row.created_at] : params,
    );
    return rows[0];
  }

  async update(id: string, accountId: string, config: CheckConfig): Promise<CheckRow | null> {
    const rows = await this.db.query<CheckRow>(
      'UPDATE checks SET name = $3, activated = $4, config = $5, updated_at = $6 WHERE id = $1 AND account_id = $2 RETURNING *',
      [id, accountId, config.name, config.activated, JSON.stringify(config), new Date()],
    );
    return rows[0] ?? null;
  }

  /** A check by id alone: for work that is not on an account's behalf (reminders). */
  async getAny(id: string): Promise<CheckRow | null> {
    return (await this.db.query<CheckRow>('SELECT * FROM checks WHERE id = $1', [id]))[0] ?? null;
  }

  async get(id: string, accountId: string): Promise<CheckRow | null> {
    return (await this.db.query<CheckRow>('SELECT * FROM checks WHERE id = $1 AND account_id = $2', [id, accountId]))[0] ?? null;
  }

  async list(accountId: string, limit: number, offset: number, checkType?: string): Promise<{ rows: CheckRow[]; total: number }> {
    const filter = checkType ? ' AND check_type = $2' : '';
    const params: unknown[] = checkType ? [accountId, checkType] : [accountId];
    const [{ n }] = await this.db.query<{ n: number }>(
      `SELECT CAST(count(*) AS integer) AS n FROM checks WHERE account_id = $1${filter}`,
      params,
    );
    const rows = await this.db.query<CheckRow>(
      `SELECT * FROM checks WHERE account_id = $1${filter} ORDER BY ${creationOrder(this.db)} LIMIT ${limit} OFFSET ${offset}`,
      params,
    );
    return { rows, total: n };
  }

  /** Every check of the account, oldest first. */
  all(accountId: string): Promise<CheckRow[]> {
    return this.db.query<CheckRow>(`SELECT * FROM checks WHERE account_id = $1 ORDER BY ${creationOrder(this.db)}`, [accountId]);
  }

  /** The account's checks whose triggerIncident names a status-page service: they watch it. */
  watchingServices(accountId: string): Promise<CheckRow[]> {
    const names =
      this.db.dialect === 'postgres'
        ? `config->'triggerIncident'->>'serviceId' IS NOT NULL`
        : `json_extract(config, '$.triggerIncident.serviceId') IS NOT NULL`;
    return this.db.query<CheckRow>(`SELECT * FROM checks WHERE account_id = $1 AND ${names} ORDER BY ${creationOrder(this.db)}`, [
      accountId,
    ]);
  }

  /** The account's checks that can be run on demand (all but heartbeats), oldest first. */
  async runnable(accountId: string): Promise<CheckRow[]> {
    return this.db.query<CheckRow>(
      `SELECT * FROM checks WHERE account_id = $1 AND check_type <> 'HEARTBEAT' ORDER BY ${creationOrder(this.db)}`,
      [accountId],
    );
  }

  /** Deletes the check with its results, status and queued runs, all or nothing. */
  async delete(id: string, accountId: string): Promise<boolean> {
    return this.db.tx(async (q) => {
      const rows = await q.query('DELETE FROM checks WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId]);
      if (rows.length === 0) return false;
      // Its pending fold is written first, so nothing folds it back in after the delete.
      await this.folds?.settle(q);
      await q.query('DELETE FROM check_results WHERE check_id = $1', [id]);
      await q.query('DELETE FROM check_statuses WHERE check_id = $1', [id]);
      await q.query('DELETE FROM check_days WHERE check_id = $1', [id]);
      await q.query('DELETE FROM jobs WHERE check_id = $1', [id]);
      await this.folds?.deleted(q);
      return true;
    });
  }

  async usingPrivateLocation(accountId: string, slug: string): Promise<string[]> {
    const uses =
      this.db.dialect === 'postgres'
        ? `config->'privateLocations' ? $2`
        : `EXISTS (SELECT 1 FROM json_each(config, '$.privateLocations') WHERE value = $2)`;
    const rows = await this.db.query<{ id: string }>(`SELECT id FROM checks WHERE account_id = $1 AND ${uses}`, [accountId, slug]);
    return rows.map((r) => r.id);
  }
}
