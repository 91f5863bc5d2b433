// JSON schemas of the fields every check type shares (spec: "Check (fields shared by all check
// types)"), and the merge of a validated body into a stored check.

import { LOCATIONS, RUNTIME_IDS, DESCRIPTION_MAX } from '../../domain/limits.js';
import { checkRuleViolation, defaultOffset } from '../../domain/check-rules.js';
import { ApiError } from '../errors.js';
import type { PrivateLocationRepository } from '../store/private-locations.js';
import type { CheckConfig } from '../store/checks.js';
import type { CheckGroups } from '../check-groups.js';
import type { StatusPageServiceRepository } from '../store/status-page-services.js';

const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });

export const alertSettingsSchema = {
  type: 'object',
  properties: {
    escalationType: { type: 'string', enum: ['RUN_BASED', 'TIME_BASED'] },
    runBasedEscalation: { type: 'object', properties: { failedRunThreshold: { type: 'integer', minimum: 1, maximum: 5 } } },
    timeBasedEscalation: { type: 'object', properties: { minutesFailingThreshold: { type: 'integer', enum: [5, 10, 15, 30] } } },
    reminders: {
      type: 'object',
      properties: {
        amount: { type: 'integer', enum: [0, 1, 2, 3, 4, 5, 100000] },
        interval: { type: 'integer', enum: [1, 2, 3, 4, 5, 10, 15, 30] },
      },
    },
    parallelRunFailureThreshold: {
      type: 'object',
      properties: { enabled: { type: 'boolean' }, percentage: { type: 'integer', enum: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100] } },
    },
    sslCertificates: { type: 'object', properties: { enabled: { type: 'boolean' }, alertThreshold: { type: 'integer' } } },
  },
};

export const DEFAULT_ALERT_SETTINGS = {
  escalationType: 'RUN_BASED',
  runBasedEscalation: { failedRunThreshold: 1 },
  reminders: { amount: 0, interval: 5 },
  parallelRunFailureThreshold: { enabled: false, percentage: 10 },
};

export const retryStrategySchema = nullable({
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', enum: ['FIXED', 'LINEAR', 'EXPONENTIAL', 'SINGLE_RETRY'] },
    baseBackoffSeconds: { type: 'number', minimum: 0 },
    sameRegion: { type: 'boolean' },
    maxRetries: { type: 'number', minimum: 1, maximum: 10 },
    maxDurationSeconds: { type: 'number', minimum: 0, maximum: 600 },
    onlyOn: { type: 'array', items: { type: 'string', enum: ['NETWORK_ERROR'] } },
  },
});

export const triggerIncidentSchema = nullable({
  type: 'object',
  required: ['serviceId', 'severity', 'name', 'description', 'notifySubscribers'],
  properties: {
    serviceId: { type: 'string', minLength: 1 },
    severity: { type: 'string', enum: ['CRITICAL', 'MAJOR', 'MEDIUM', 'MINOR'] },
    name: { type: 'string' },
    description: { type: 'string' },
    notifySubscribers: { type: 'boolean' },
  },
});

/** Shared properties; `frequency` and the response-time limits are added per type. */
export const commonCheckProperties = {
  name: { type: 'string', minLength: 1, maxLength: 255 },
  activated: { type: 'boolean' },
  muted: { type: 'boolean' },
  doubleCheck: { type: 'boolean' },
  shouldFail: { type: 'boolean' },
  locations: nullable({ type: 'array', uniqueItems: true, items: { type: 'string', enum: [...LOCATIONS] } }),
  privateLocations: nullable({ type: 'array', uniqueItems: true, items: { type: 'string', minLength: 1 } }),
  tags: { type: 'array', items: { type: 'string', minLength: 1 } },
  alertSettings: alertSettingsSchema,
  useGlobalAlertSettings: { type: 'boolean' },
  groupId: nullable({ type: 'number' }),
  groupOrder: nullable({ type: 'number', minimum: 0 }),
  runtimeId: nullable({ type: 'string', enum: [...RUNTIME_IDS] }),
  alertChannelSubscriptions: {
    type: 'array',
    items: {
      type: 'object',
      required: ['alertChannelId', 'activated'],
      properties: { alertChannelId: { type: 'number' }, activated: { type: 'boolean' } },
    },
  },
  retryStrategy: retryStrategySchema,
  triggerIncident: triggerIncidentSchema,
  runParallel: { type: 'boolean' },
  description: nullable({ type: 'string', maxLength: DESCRIPTION_MAX }),
  frequencyOffset: nullable({ type: 'integer', minimum: 1 }),
  checkType: { type: 'string' },
} as const;

export const autoAssignQuery = {
  type: 'object',
  properties: { autoAssignAlerts: { type: 'boolean', default: true } },
};

export const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1 } } };

/** A create or update body once its route's JSON schema has passed it: check fields by name. */
export type CheckBody = Partial<CheckConfig>;

/** Defaults the spec gives for a new check; type-specific ones come from the caller. */
export function newCheckConfig(body: CheckBody, typeDefaults: Partial<CheckConfig>): CheckConfig {
  const pick = <K extends keyof CheckConfig>(k: K, d: CheckConfig[K]): CheckConfig[K] =>
    (body[k] === undefined ? d : body[k]) as CheckConfig[K];
  const frequency = pick('frequency', typeDefaults.frequency ?? 10);
  return {
    name: body.name as string,
    activated: pick('activated', true),
    muted: pick('muted', false),
    doubleCheck: pick('doubleCheck', true),
    shouldFail: pick('shouldFail', false),
    locations: pick('locations', []) ?? [],
    privateLocations: pick('privateLocations', null),
    tags: pick('tags', []),
    alertSettings: pick('alertSettings', DEFAULT_ALERT_SETTINGS),
    useGlobalAlertSettings: pick('useGlobalAlertSettings', true),
    groupId: pick('groupId', null),
    groupOrder: pick('groupOrder', null),
    runtimeId: pick('runtimeId', null),
    alertChannelSubscriptions: pick('alertChannelSubscriptions', []),
    retryStrategy: pick('retryStrategy', null),
    triggerIncident: pick('triggerIncident', null),
    runParallel: pick('runParallel', false),
    description: pick('description', null),
    frequency,
    frequencyOffset: defaultOffset(frequency, body.frequencyOffset),
    degradedResponseTime: pick('degradedResponseTime', typeDefaults.degradedResponseTime ?? null),
    maxResponseTime: pick('maxResponseTime', typeDefaults.maxResponseTime ?? null),
    request: body.request ?? {},
  };
}

/** A partial update: given fields replace stored ones; `request` merges one level deep. */
export function mergeCheckConfig(stored: CheckConfig, body: CheckBody, known: ReadonlySet<string>): CheckConfig {
  const next: CheckConfig = { ...stored };
  for (const [k, v] of Object.entries(body)) {
    // Fields the type does not have are not stored, as on create.
    if (v === undefined || !known.has(k) || k === 'checkType' || k === 'id') continue;
    if (k === 'request' && v && typeof v === 'object') next.request = { ...stored.request, ...v };
    else (next as Record<string, unknown>)[k] = v;
  }
  if (body.locations === null) next.locations = [];
  if (body.frequency !== undefined && body.frequencyOffset === undefined) {
    // A new frequency may not fit the old offset; keep it only when it still does.
    next.frequencyOffset = checkRuleViolation({ ...next }) ? defaultOffset(next.frequency, null) : next.frequencyOffset;
  }
  next.frequencyOffset = defaultOffset(next.frequency, next.frequencyOffset);
  return next;
}

/**
 * Cross-field rules and references to other resources; throws a 400 naming the field. Returns
 * the account's private locations (slugIndex) when it read them, for the scheduler.
 */
export async function assertValidCheck(
  refs: {
    store: { privateLocations: PrivateLocationRepository; statusPageServices: Pick<StatusPageServiceRepository, 'get'> };
    groups: Pick<CheckGroups, 'get'>;
  },
  accountId: string,
  cfg: CheckConfig,
): Promise<Map<string, string> | undefined> {
  const v = checkRuleViolation(cfg);
  if (v) throw new ApiError(400, v.message, { field: v.field, rule: v.rule });
  if (cfg.groupId !== null && cfg.groupId !== undefined && !refs.groups.get(accountId, cfg.groupId))
    throw new ApiError(400, `groupId names no check group with id ${cfg.groupId}`, { field: 'groupId', rule: 'exists' });
  const serviceId = (cfg.triggerIncident as { serviceId?: string } | null)?.serviceId;
  if (serviceId && !(await refs.store.statusPageServices.get(accountId, serviceId)))
    throw new ApiError(400, `triggerIncident.serviceId names no status-page service with id ${serviceId}`, {
      field: 'triggerIncident.serviceId',
      rule: 'exists',
    });
  return assertPrivateLocations(refs.store.privateLocations, accountId, cfg.privateLocations);
}

/** Refuses (400) slugs that name no private location of the account. */
export async function assertPrivateLocations(
  privateLocations: Pick<PrivateLocationRepository, 'slugIndex'>,
  accountId: string,
  slugs: string[] | null,
): Promise<Map<string, string> | undefined> {
  if (!slugs?.length) return undefined;
  const index = await privateLocations.slugIndex(accountId);
  const missing = slugs.filter((s) => !index.has(`${accountId}/${s}`));
  if (missing.length)
    throw new ApiError(
      400,
      `privateLocations names no private location with slugName ${missing.map((m) => JSON.stringify(m)).join(', ')}`,
      {
        field: 'privateLocations',
        rule: 'exists',
        missing,
      },
    );
  return index;
}
