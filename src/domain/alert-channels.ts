// Alert channel types: the config each needs, the parts of it that are secrets, and how a check's
// `alertChannels` summary is drawn from its subscriptions. Pure.

export const ALERT_CHANNEL_TYPES = ['EMAIL', 'SLACK', 'SLACK_APP', 'WEBHOOK', 'SMS', 'PAGERDUTY', 'OPSGENIE', 'CALL'] as const;
export type AlertChannelType = (typeof ALERT_CHANNEL_TYPES)[number];

export const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'HEAD', 'DELETE'] as const;
export const WEBHOOK_TYPES = ['WEBHOOK_MSTEAMS', 'WEBHOOK_TELEGRAM', 'WEBHOOK_INCIDENTIO', 'WEBHOOK_DISCORD'] as const;
export const OPSGENIE_REGIONS = ['US', 'EU'] as const;
export const OPSGENIE_PRIORITIES = ['P1', 'P2', 'P3', 'P4', 'P5'] as const;

/** Config fields that are credentials: shown masked, never logged, kept when sent back masked. */
const SECRET_FIELDS: Partial<Record<AlertChannelType, string[]>> = {
  WEBHOOK: ['webhookSecret'],
  OPSGENIE: ['apiKey'],
  PAGERDUTY: ['serviceKey'],
};

const MASK = '****';

/** A secret as the API shows it: its last four characters at most. */
export function maskSecret(value: string): string {
  return value.length > 8 ? `${MASK}${value.slice(-4)}` : MASK;
}

export function showConfig(type: string, config: Record<string, unknown>): Record<string, unknown> {
  const out = { ...config };
  for (const f of SECRET_FIELDS[type as AlertChannelType] ?? [])
    if (typeof out[f] === 'string' && out[f]) out[f] = maskSecret(out[f] as string);
  return out;
}

/** A config sent back with its secrets as shown keeps the stored secrets. */
export function keepSecrets(type: string, sent: Record<string, unknown>, stored: Record<string, unknown> | null): Record<string, unknown> {
  const out = { ...sent };
  for (const f of SECRET_FIELDS[type as AlertChannelType] ?? []) {
    const v = out[f];
    if (stored && typeof v === 'string' && typeof stored[f] === 'string' && v === maskSecret(stored[f] as string)) out[f] = stored[f];
  }
  return out;
}

type Rule = { field: string; check: (v: unknown) => boolean; says: string; required: boolean };
const str = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= 2048;
const url = (v: unknown) => {
  if (typeof v !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
};
const oneOf = (list: readonly string[]) => (v: unknown) => typeof v === 'string' && list.includes(v);
const pairs = (v: unknown) =>
  Array.isArray(v) &&
  v.length <= 50 &&
  v.every((p) => p && typeof p === 'object' && typeof p.key === 'string' && typeof (p.value ?? '') === 'string');
const E164 = /^\+[1-9]\d{6,14}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** SMS and CALL channels: a number to reach. */
const PHONE: Rule[] = [
  {
    field: 'number',
    check: (v) => typeof v === 'string' && E164.test(v),
    says: 'a phone number in E.164 form (+15551234567)',
    required: true,
  },
  { field: 'name', check: (v) => typeof v === 'string', says: 'a string', required: false },
];

const RULES: Record<AlertChannelType, Rule[]> = {
  EMAIL: [{ field: 'address', check: (v) => typeof v === 'string' && EMAIL.test(v), says: 'an email address', required: true }],
  SLACK: [
    { field: 'url', check: url, says: 'an http(s) URL (the incoming webhook)', required: true },
    { field: 'channel', check: (v) => typeof v === 'string', says: 'a string', required: false },
  ],
  SLACK_APP: [
    {
      field: 'slackChannels',
      check: (v) => Array.isArray(v) && v.every((c) => typeof c === 'string'),
      says: 'a list of channel names',
      required: false,
    },
  ],
  WEBHOOK: [
    { field: 'name', check: str, says: 'a name', required: true },
    { field: 'url', check: url, says: 'an http(s) URL', required: true },
    { field: 'method', check: oneOf(WEBHOOK_METHODS), says: `one of ${WEBHOOK_METHODS.join(', ')}`, required: true },
    { field: 'template', check: (v) => typeof v === 'string' && v.length <= 64 * 1024, says: 'a string', required: false },
    { field: 'headers', check: pairs, says: 'a list of {key, value}', required: false },
    { field: 'queryParameters', check: pairs, says: 'a list of {key, value}', required: false },
    { field: 'webhookSecret', check: (v) => typeof v === 'string', says: 'a string', required: false },
    { field: 'webhookType', check: oneOf(WEBHOOK_TYPES), says: `one of ${WEBHOOK_TYPES.join(', ')}`, required: false },
  ],
  SMS: PHONE,
  CALL: PHONE,
  PAGERDUTY: [
    { field: 'serviceKey', check: str, says: 'the integration (routing) key', required: true },
    { field: 'account', check: (v) => typeof v === 'string', says: 'a string', required: false },
    { field: 'serviceName', check: (v) => typeof v === 'string', says: 'a string', required: false },
  ],
  OPSGENIE: [
    { field: 'name', check: (v) => typeof v === 'string', says: 'a string', required: false },
    { field: 'apiKey', check: str, says: 'an API key', required: true },
    { field: 'region', check: oneOf(OPSGENIE_REGIONS), says: `one of ${OPSGENIE_REGIONS.join(', ')}`, required: true },
    { field: 'priority', check: oneOf(OPSGENIE_PRIORITIES), says: `one of ${OPSGENIE_PRIORITIES.join(', ')}`, required: true },
  ],
};

/** The first thing wrong with a channel's config, or null. */
export function configViolation(type: AlertChannelType, config: Record<string, unknown>): { field: string; message: string } | null {
  for (const r of RULES[type]) {
    const v = config[r.field];
    if (v === undefined || v === null) {
      if (r.required) return { field: `config.${r.field}`, message: `config.${r.field} is required for ${type} channels (${r.says})` };
      continue;
    }
    if (!r.check(v)) return { field: `config.${r.field}`, message: `config.${r.field} must be ${r.says}` };
  }
  return null;
}

export interface ChannelSummary {
  type: string;
  config: Record<string, unknown>;
  activated: boolean;
}

/** A check's `alertChannels`: its activated subscriptions by kind, as the public API shows them. */
export function alertChannelsOf(subscribed: readonly ChannelSummary[]) {
  const on = subscribed.filter((s) => s.activated);
  const c = (s: ChannelSummary) => s.config;
  return {
    email: on.filter((s) => s.type === 'EMAIL').map((s) => ({ address: c(s).address })),
    webhook: on
      .filter((s) => s.type === 'WEBHOOK')
      .map((s) => ({
        name: c(s).name,
        url: c(s).url,
        method: c(s).method,
        headers: c(s).headers ?? [],
        queryParameters: c(s).queryParameters ?? [],
      })),
    slack: on.filter((s) => s.type === 'SLACK').map((s) => ({ url: c(s).url })),
    sms: on.filter((s) => s.type === 'SMS').map((s) => ({ number: c(s).number, name: c(s).name ?? '' })),
  };
}
