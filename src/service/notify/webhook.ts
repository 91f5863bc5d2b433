// WEBHOOK channels: method, URL, headers, query and body are Handlebars templates over the
// event's variables (and helpers Checkly's webhooks offer); presets for Microsoft Teams,
// Telegram, Discord and incident.io. With a webhookSecret the body is signed (HMAC-SHA256, hex,
// in x-checkly-signature, as Checkly signs, so existing receivers verify it).

import { createHmac, randomUUID } from 'node:crypto';
import Handlebars from 'handlebars';
import { httpSend, type Sender } from './types.js';

const hb = Handlebars.create();
const cmp = (name: string, f: (a: unknown, b: unknown) => boolean) =>
  hb.registerHelper(name, function (this: unknown, a: unknown, b: unknown, options: Handlebars.HelperOptions) {
    const r = f(a, b);
    return options && typeof options.fn === 'function' ? (r ? options.fn(this) : options.inverse(this)) : r;
  });
cmp('eq', (a, b) => a === b);
cmp('is', (a, b) => a == b);
cmp('isnt', (a, b) => a != b);
cmp('gt', (a, b) => Number(a) > Number(b));
cmp('gte', (a, b) => Number(a) >= Number(b));
cmp('lt', (a, b) => Number(a) < Number(b));
cmp('lte', (a, b) => Number(a) <= Number(b));
cmp('contains', (a, b) => (Array.isArray(a) || typeof a === 'string' ? a.includes(b as never) : false));
cmp('startsWith', (a, b) => typeof a === 'string' && a.startsWith(String(b)));
hb.registerHelper('and', (...args: unknown[]) => args.slice(0, -1).every(Boolean));
hb.registerHelper('or', (...args: unknown[]) => args.slice(0, -1).some(Boolean));
hb.registerHelper('not', (a: unknown) => !a);
hb.registerHelper('default', (a: unknown, b: unknown) => a ?? b);
hb.registerHelper('replace', (s: unknown, a: unknown, b: unknown) =>
  String(s ?? '')
    .split(String(a))
    .join(String(b)),
);
hb.registerHelper('split', (s: unknown, sep: unknown) => String(s ?? '').split(String(sep)));
hb.registerHelper('year', () => new Date().getUTCFullYear());
hb.registerHelper('$UUID', () => randomUUID());
hb.registerHelper('$RANDOM_NUMBER', () => Math.floor(Math.random() * 10_001));
hb.registerHelper('tagValue', (tags: unknown, key: unknown, fallback: unknown) => {
  const hit = (Array.isArray(tags) ? tags : []).map(String).find((t) => t.startsWith(`${key}:`) || t.startsWith(`${key}=`));
  return hit ? hit.slice(String(key).length + 1) : fallback;
});

const cache = new Map<string, Handlebars.TemplateDelegate>();
function render(template: string, vars: Record<string, unknown>): string {
  let t = cache.get(template);
  if (!t) {
    t = hb.compile(template, { noEscape: false, strict: false });
    if (cache.size > 500) cache.clear();
    cache.set(template, t);
  }
  return t(vars);
}

/** Bodies of the presets, and the default body: JSON of the main variables. */
const PRESETS: Record<string, string> = {
  WEBHOOK_MSTEAMS: `{"@type":"MessageCard","@context":"https://schema.org/extensions","summary":"{{{ALERT_TITLE}}}","title":"{{{ALERT_TITLE}}}","text":"{{{CHECK_ERROR_MESSAGE}}}","potentialAction":[{"@type":"OpenUri","name":"View result","targets":[{"os":"default","uri":"{{{RESULT_LINK}}}"}]}]}`,
  WEBHOOK_TELEGRAM: `{"text":"{{{ALERT_TITLE}}}\\n{{{CHECK_ERROR_MESSAGE}}}\\n{{{RESULT_LINK}}}"}`,
  WEBHOOK_DISCORD: `{"content":"{{{ALERT_TITLE}}}","embeds":[{"title":"{{{CHECK_NAME}}}","description":"{{{CHECK_ERROR_MESSAGE}}}","url":"{{{RESULT_LINK}}}"}]}`,
  WEBHOOK_INCIDENTIO: `{"title":"{{{ALERT_TITLE}}}","status":"{{#if (eq ALERT_TYPE "ALERT_RECOVERY")}}resolved{{else}}firing{{/if}}","deduplication_key":"{{{CHECK_ID}}}","description":"{{{CHECK_ERROR_MESSAGE}}}","source_url":"{{{RESULT_LINK}}}","metadata":{"check_id":"{{{CHECK_ID}}}","run_location":"{{{REGION}}}"}}`,
};

/** JSON string escapes for values placed inside a preset's JSON. */
function jsonSafe(vars: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(vars)) out[k] = typeof v === 'string' ? JSON.stringify(v).slice(1, -1) : v;
  return out;
}

/** Why a channel's template (or URL, header, query) cannot be rendered, or null. */
export function templateError(template: string): string | null {
  try {
    hb.precompile(template);
    return null;
  } catch (err) {
    return (err as Error).message.split('\n').slice(0, 3).join(' ');
  }
}

interface WebhookConfig {
  url: string;
  method: string;
  template?: string;
  headers?: { key: string; value: string }[];
  queryParameters?: { key: string; value: string }[];
  webhookSecret?: string;
  webhookType?: string;
}

/** The channel's config, as it was validated when saved. */
function webhookConfig(c: Record<string, unknown>): WebhookConfig {
  return {
    url: String(c.url),
    method: String(c.method),
    template: typeof c.template === 'string' ? c.template : undefined,
    headers: Array.isArray(c.headers) ? (c.headers as WebhookConfig['headers']) : undefined,
    queryParameters: Array.isArray(c.queryParameters) ? (c.queryParameters as WebhookConfig['queryParameters']) : undefined,
    webhookSecret: typeof c.webhookSecret === 'string' ? c.webhookSecret : undefined,
    webhookType: typeof c.webhookType === 'string' ? c.webhookType : undefined,
  };
}

export const sendWebhook: Sender = async (n, cfg) => {
  const c = webhookConfig(n.config);
  const vars = n.event;
  try {
    return await send(n.id, c, vars, cfg.timeoutMs);
  } catch (err) {
    // A template that cannot render never will: no retries.
    return { ok: false, retry: false, message: `the webhook could not be rendered: ${(err as Error).message.split('\n')[0]}` };
  }
};

async function send(id: string, c: WebhookConfig, vars: Record<string, unknown>, timeoutMs: number) {
  // A template of the user's is Handlebars as Checkly's are ({{X}} HTML-escaped, {{{X}}} not);
  // the presets place JSON-escaped values unescaped.
  const preset = c.webhookType ? PRESETS[c.webhookType] : undefined;
  const body = c.template ? render(c.template, vars) : preset ? render(preset, jsonSafe(vars)) : JSON.stringify(vars);
  const url = new URL(render(c.url, vars));
  for (const q of c.queryParameters ?? []) url.searchParams.append(render(q.key, vars), render(q.value ?? '', vars));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Outpost alerts',
    'x-outpost-notification-id': id,
  };
  for (const h of c.headers ?? []) headers[render(h.key, vars).toLowerCase()] = render(h.value ?? '', vars);
  if (c.webhookSecret) {
    headers['x-checkly-signature'] = createHmac('sha256', c.webhookSecret).update(body).digest('hex');
    headers['x-checkly-timestamp'] = String(Date.now());
  }
  return httpSend(url.toString(), { method: c.method, headers, body }, timeoutMs);
}
