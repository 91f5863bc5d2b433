// The sender of each channel type. SLACK_APP needs Checkly's Slack app: stored and shown, not sent.
import type { Sender } from './types.js';
import { sendWebhook } from './webhook.js';
import { sendSlack } from './slack.js';
import { sendEmail } from './email.js';
import { sendPagerDuty } from './pagerduty.js';
import { sendOpsgenie } from './opsgenie.js';
import { sendSms, sendCall } from './sms.js';

export const SENDERS: Record<string, Sender> = {
  WEBHOOK: sendWebhook,
  SLACK: sendSlack,
  EMAIL: sendEmail,
  PAGERDUTY: sendPagerDuty,
  OPSGENIE: sendOpsgenie,
  SMS: sendSms,
  CALL: sendCall,
  SLACK_APP: async () => ({
    ok: false,
    retry: false,
    message: 'SLACK_APP channels need the Slack app of a hosted service; use a SLACK (incoming webhook) channel',
  }),
};
export type { NotifyConfig, SendOutcome, Sender } from './types.js';
