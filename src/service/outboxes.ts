// The service's outboxes as the notifier drains them: alert notifications, sent through their
// channel's sender, and emails to status-page subscribers.

import type { Outbox } from './notifier.js';
import type { Store } from './store/index.js';
import type { DueNotification } from './store/alerts.js';
import type { DueEmail, SubscriberMessage } from './store/subscriptions.js';
import { SENDERS, type NotifyConfig } from './notify/index.js';
import { mail } from './notify/email.js';

export function alertOutbox(store: Store, cfg: NotifyConfig): Outbox<DueNotification> {
  const a = store.alerts;
  return {
    due: (now, limit) => a.due(now, limit),
    nextDue: () => a.nextDue(),
    lease: (ids, until) => a.lease(ids, until),
    attempted: (id, status, attempts, result, next) => a.attempted(id, status, attempts, result, next),
    orphans: () => a.orphans(),
    send: async (n) => {
      const sender = SENDERS[n.type];
      return sender ? sender(n, cfg) : { ok: false, retry: false, message: `no sender for ${n.type} channels` };
    },
    describe: (n) => ({ notificationId: n.id, channelId: n.channel_id, type: n.type }),
  };
}

export function subscriberOutbox(store: Store, cfg: NotifyConfig, baseUrl: () => string): Outbox<DueEmail> {
  const s = store.subscriptions;
  return {
    due: (now, limit) => s.due(now, limit),
    nextDue: () => s.nextDue(),
    lease: (ids, until) => s.lease(ids, until),
    attempted: (id, status, attempts, result, next) => s.attempted(id, status, attempts, result, next),
    send: (e) =>
      mail(cfg, {
        id: e.id,
        to: e.address,
        ...subscriberEmail(e.message, baseUrl(), `${baseUrl()}/subscriptions/${e.subscription_id}`, e.token),
      }),
    describe: (e) => ({ emailId: e.id, subscriptionId: e.subscription_id }),
  };
}

const titleCase = (s: string) => s.charAt(0) + s.slice(1).toLowerCase();

/** The subject and text of a subscriber's email; links carry the subscription's own token. */
export function subscriberEmail(
  m: SubscriberMessage,
  base: string,
  subscription: string,
  token: string,
): { subject: string; text: string } {
  if (m.kind === 'confirm')
    return {
      subject: `Confirm your subscription to ${m.pageName}`,
      text: [
        `You were subscribed to updates from the ${m.pageName} status page.`,
        '',
        `Confirm it: ${subscription}/confirm?token=${token}`,
        '',
        'If you did not ask for this, ignore this email: nothing will be sent to you.',
      ].join('\n'),
    };
  return {
    subject: `[${m.pageName}] ${m.incident}: ${titleCase(m.status)}`,
    text: [
      `${m.incident} (${titleCase(m.severity)})`,
      `Affects: ${m.services.join(', ')}`,
      '',
      `${titleCase(m.status)}: ${m.description}`,
      '',
      `Status page: ${base}/status/${m.pageUrl}`,
      `Unsubscribe: ${subscription}/unsubscribe?token=${token}`,
    ].join('\n'),
  };
}
