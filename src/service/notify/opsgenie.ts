// OPSGENIE channels: the Alerts API of the channel's region; a failure creates an alert aliased
// by the check's id, a recovery closes it.
import { httpSend, type Sender } from './types.js';
import { kindOf } from '../../domain/alert-event.js';
import type { AlertType } from '../../domain/alert-state.js';

export const sendOpsgenie: Sender = async (n, cfg) => {
  const c = n.config as { apiKey: string; region: 'US' | 'EU'; priority: string };
  const e = n.event;
  const base = cfg.opsgenieUrl[c.region] ?? cfg.opsgenieUrl.US;
  const headers = { 'content-type': 'application/json', authorization: `GenieKey ${c.apiKey}` };
  if (kindOf(n.alert_type as AlertType) === 'recovery') {
    return httpSend(
      `${base}/v2/alerts/${encodeURIComponent(n.check_id)}/close?identifierType=alias`,
      { method: 'POST', headers, body: JSON.stringify({ source: 'Outpost', note: String(e.ALERT_TITLE) }) },
      cfg.timeoutMs,
    );
  }
  const body = {
    message: String(e.ALERT_TITLE).slice(0, 130),
    alias: n.check_id,
    description: `${e.CHECK_ERROR_MESSAGE || ''}\n${e.RESULT_LINK}`.trim(),
    priority: c.priority,
    source: 'Outpost',
    tags: e.TAGS,
    details: { location: String(e.RUN_LOCATION), responseTime: String(e.RESPONSE_TIME), alertType: String(e.ALERT_TYPE) },
  };
  return httpSend(`${base}/v2/alerts`, { method: 'POST', headers, body: JSON.stringify(body) }, cfg.timeoutMs);
};
