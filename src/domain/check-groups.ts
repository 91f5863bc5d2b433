// Check groups: what a group stores, its defaults by API version, and the effective check (a
// member check with its group's settings applied), which the scheduler, the jobs, the alert
// engine and `applyGroupSettings` all read. Pure.

import type { CheckVariable } from './check-variables.js';

interface KeyValue {
  key: string;
  value: string;
  locked?: boolean;
}

export interface ApiCheckDefaults {
  url?: string | null;
  headers?: KeyValue[];
  queryParameters?: KeyValue[];
  assertions?: Record<string, unknown>[];
  basicAuth?: { username: string; password: string } | null;
}

/** `FALLBACK`: the group leaves retries to each check. */
export type GroupRetry = Record<string, unknown> | null | 'FALLBACK';

export interface GroupConfig {
  name: string;
  activated: boolean;
  muted: boolean;
  tags: string[];
  locations: string[];
  privateLocations: string[] | null;
  concurrency: number;
  apiCheckDefaults: ApiCheckDefaults;
  browserCheckDefaults: string | null;
  runtimeId: string | null;
  environmentVariables: CheckVariable[] | null;
  setupSnippetId: number | null;
  tearDownSnippetId: number | null;
  localSetupScript: string | null;
  localTearDownScript: string | null;
  /** null: each check's own. */
  runParallel: boolean | null;
  alertSettings: Record<string, unknown> | null;
  retryStrategy: GroupRetry;
  useGlobalAlertSettings: boolean | null;
  doubleCheck: boolean;
  /** Created through /v1 (overrides its checks' settings) or /v2 (only where it sets a value). */
  version: 1 | 2;
}

/** What a new group is without a value in its body, by the API version that creates it. */
export function groupDefaults(version: 1 | 2): Omit<GroupConfig, 'name'> {
  return {
    activated: true,
    muted: false,
    tags: [],
    locations: [],
    privateLocations: null,
    concurrency: 3,
    apiCheckDefaults: { url: '', headers: [], queryParameters: [], assertions: [], basicAuth: null },
    browserCheckDefaults: null,
    runtimeId: null,
    environmentVariables: [],
    setupSnippetId: null,
    tearDownSnippetId: null,
    localSetupScript: null,
    localTearDownScript: null,
    runParallel: version === 1 ? false : null,
    alertSettings: null,
    retryStrategy: version === 1 ? null : 'FALLBACK',
    useGlobalAlertSettings: version === 1 ? true : null,
    doubleCheck: version === 1,
    version,
  };
}

/** Whether the group's alerting (settings and channels) replaces its members' own. */
export function groupAlerts(g: GroupConfig, hasSubscriptions: boolean): boolean {
  return g.version === 1 || g.alertSettings !== null || g.useGlobalAlertSettings !== null || hasSubscriptions;
}

/** An API check's group setup and teardown: setup runs before the check's, teardown after. */
export interface GroupScripts {
  setupSnippetId: number | null;
  localSetupScript: string | null;
  tearDownSnippetId: number | null;
  localTearDownScript: string | null;
}

/** The check config fields the effective view reads and writes. */
export interface MemberConfig {
  activated: boolean;
  muted: boolean;
  locations: string[];
  privateLocations: string[] | null;
  runParallel: boolean;
  retryStrategy: Record<string, unknown> | null;
  doubleCheck: boolean;
  alertSettings: Record<string, unknown>;
  useGlobalAlertSettings: boolean;
  runtimeId: string | null;
  request?: Record<string, unknown>;
  environmentVariables?: unknown;
  /** Set on the effective view only. */
  groupScripts?: GroupScripts;
  [extra: string]: unknown;
}

const sameKey = (a: string, b: string, caseless: boolean) => (caseless ? a.toLowerCase() === b.toLowerCase() : a === b);

/** The group's pairs the check does not set itself, then the check's (a check's own wins). */
function mergePairs(group: KeyValue[] | undefined, own: unknown, caseless: boolean): KeyValue[] {
  const mine = Array.isArray(own) ? (own as KeyValue[]) : [];
  return [...(group ?? []).filter((g) => !mine.some((m) => sameKey(m.key, g.key, caseless))), ...mine];
}

/**
 * A member check as it runs: v1 groups override their checks' locations, parallelism, retries
 * and alerting; v2 groups only where they set a value. Runtime: the check's, else the group's.
 * Variables: the group's, then the check's (a check's own key wins). An inactive group's checks
 * do not run; a muted group's send nothing. API checks take the group's base URL (as the
 * variable GROUP_BASE_URL), headers, query parameters and basic auth where they have none of
 * their own, and its assertions after theirs.
 */
export function effectiveConfig<C extends MemberConfig>(check: C, checkType: string, g: GroupConfig, hasSubscriptions: boolean): C {
  const out: C = { ...check };
  out.activated = check.activated && g.activated;
  out.muted = check.muted || g.muted;
  const v1 = g.version === 1;
  if (v1 || g.locations.length || g.privateLocations?.length) {
    out.locations = [...g.locations];
    out.privateLocations = g.privateLocations ? [...g.privateLocations] : null;
  }
  if (v1 ? true : g.runParallel !== null) out.runParallel = !!g.runParallel;
  if (v1 || g.retryStrategy !== 'FALLBACK') {
    out.retryStrategy = g.retryStrategy === 'FALLBACK' ? null : g.retryStrategy;
    out.doubleCheck = g.doubleCheck;
  }
  if (groupAlerts(g, hasSubscriptions)) {
    out.useGlobalAlertSettings = g.useGlobalAlertSettings ?? !g.alertSettings;
    if (g.alertSettings) out.alertSettings = g.alertSettings;
  }
  out.runtimeId = check.runtimeId ?? g.runtimeId;
  const vars = [...(g.environmentVariables ?? [])];
  const defaults = g.apiCheckDefaults ?? {};
  if (checkType === 'API' && defaults.url) vars.unshift({ key: 'GROUP_BASE_URL', value: defaults.url });
  if (vars.length) {
    const own = Array.isArray(check.environmentVariables) ? (check.environmentVariables as CheckVariable[]) : [];
    out.environmentVariables = [...vars.filter((v) => !own.some((o) => o.key === v.key)), ...own];
  }
  if (checkType === 'API' && check.request) {
    const r = check.request as {
      headers?: unknown;
      queryParameters?: unknown;
      assertions?: unknown;
      basicAuth?: { username?: string } | null;
    };
    out.request = {
      ...r,
      headers: mergePairs(defaults.headers, r.headers, true),
      queryParameters: mergePairs(defaults.queryParameters, r.queryParameters, false),
      assertions: [...(Array.isArray(r.assertions) ? r.assertions : []), ...(defaults.assertions ?? [])],
      basicAuth: r.basicAuth?.username ? r.basicAuth : (defaults.basicAuth ?? r.basicAuth ?? null),
    };
    const scripts: GroupScripts = {
      setupSnippetId: g.setupSnippetId,
      localSetupScript: g.localSetupScript,
      tearDownSnippetId: g.tearDownSnippetId,
      localTearDownScript: g.localTearDownScript,
    };
    if (Object.values(scripts).some((v) => v !== null && v !== '')) out.groupScripts = scripts;
  }
  return out;
}

/** Members in the order a group run starts them: groupOrder (none last), then the oldest first. */
export function runOrder<T extends { groupOrder: number | null; createdAt: number }>(members: T[]): T[] {
  return [...members].sort((a, b) => (a.groupOrder ?? Infinity) - (b.groupOrder ?? Infinity) || a.createdAt - b.createdAt);
}
