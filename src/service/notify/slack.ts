// SLACK channels: a message posted to the channel's incoming webhook.
import { httpSend, type Sender } from './types.js';

export const sendSlack: Sender = async (n, cfg) => {
  const c = n.config as { url: string; channel?: string };
  const e = n.event;
  const recovered = String(e.ALERT_TYPE).endsWith('RECOVERY');
  const body = {
    ...(c.channel ? { channel: c.channel } : {}),
    text: `${recovered ? ':white_check_mark:' : ':rotating_light:'} ${e.ALERT_TITLE}`,
    attachments: [
      {
        color: recovered ? 'good' : 'danger',
        fields: [
          { title: 'Location', value: String(e.RUN_LOCATION), short: true },
          { title: 'Response time', value: `${e.RESPONSE_TIME} ms`, short: true },
          ...(e.CHECK_ERROR_MESSAGE ? [{ title: 'Error', value: String(e.CHECK_ERROR_MESSAGE), short: false }] : []),
        ],
        title_link: String(e.RESULT_LINK),
        title: 'View the result',
      },
    ],
  };
  return httpSend(c.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, cfg.timeoutMs);
};
