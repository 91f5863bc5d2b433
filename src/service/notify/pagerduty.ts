// PAGERDUTY channels: Events API v2; a failure triggers and a recovery resolves the incident
// of the check (its id is the dedup key).
import { httpSend, type Sender } from './types.js';
import { kindOf } from '../../domain/alert-event.js';
import type { AlertType } from '../../domain/alert-state.js';

export const sendPagerDuty: Sender = async (n, cfg) => {
  const c = n.config as { serviceKey: string };
  const e = n.event;
  const kind = kindOf(n.alert_type as AlertType);
  const body = {
    routing_key: c.serviceKey,
    event_action: kind === 'recovery' ? 'resolve' : 'trigger',
    dedup_key: n.check_id,
    payload: {
      summary: String(e.ALERT_TITLE),
      source: String(e.RUN_LOCATION),
      severity: kind === 'degraded' ? 'warning' : 'critical',
      custom_details: { error: e.CHECK_ERROR_MESSAGE, responseTime: e.RESPONSE_TIME, checkType: e.CHECK_TYPE, resultLink: e.RESULT_LINK },
    },
    links: [{ href: String(e.RESULT_LINK), text: 'Check result' }],
  };
  return httpSend(
    cfg.pagerdutyUrl,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    cfg.timeoutMs,
  );
};
