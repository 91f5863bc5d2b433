// Delivers the notifications the alert engine stored (the outbox). Each is leased (its next
// attempt moved past the send's time limit) before it is sent and marked after, so a crash
// between the two sends it again after the restart, never loses it; receivers deduplicate by
// the notification id each carries. Sends run side by side: a slow or dead channel holds up
// only its own notifications, and result ingest never waits on any.

import type { Logger } from '../log.js';
import type { Store } from './store/index.js';
import type { DueNotification } from './store/alerts.js';
import { SENDERS, type NotifyConfig, type SendOutcome } from './notify/index.js';

export interface NotifierConfig extends NotifyConfig {
  /** Between a failed attempt and the next. */
  retryMs: number;
  /** Attempts in all, the first included. */
  attempts: number;
}

const BATCH = 100;

export class Notifier {
  private inflight = new Set<string>();
  private draining: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly cfg: NotifierConfig,
    private readonly now: () => number = Date.now,
  ) {}

  /** Looks for notifications due now (new ones, retries, those a crash left). */
  wake(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain()
      .catch((err) => this.log.error({ err }, 'could not read the notification outbox'))
      .finally(() => {
        this.draining = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.draining;
  }

  private async drain(): Promise<void> {
    for (const id of await this.store.alerts.orphans())
      await this.store.alerts.attempted(id, 'FAILURE', 0, { message: 'the alert channel was deleted before this was sent' }, 0);
    const due = (await this.store.alerts.due(this.now(), BATCH)).filter((n) => !this.inflight.has(n.id));
    // Leased first, in one write: found again only once these attempts can no longer be under way.
    await this.store.alerts.lease(
      due.map((n) => n.id),
      this.now() + this.cfg.timeoutMs + 5000,
    );
    for (const n of due) {
      this.inflight.add(n.id);
      void this.deliver(n);
    }
    if (due.length === BATCH) this.again = true;
    await this.scheduleNext();
  }

  private async deliver(n: DueNotification): Promise<void> {
    const sender = SENDERS[n.type];
    let out: SendOutcome;
    try {
      out = sender ? await sender(n, this.cfg) : { ok: false, retry: false, message: `no sender for ${n.type} channels` };
    } catch (err) {
      out = { ok: false, retry: true, message: (err as Error).message };
    }
    const attempts = n.attempts + 1;
    const result = { status: out.status ?? null, message: out.message, attempts };
    const status = out.ok ? 'SUCCESS' : out.retry && attempts < this.cfg.attempts ? 'IN_PROGRESS' : 'FAILURE';
    try {
      await this.store.alerts.attempted(n.id, status, attempts, result, status === 'IN_PROGRESS' ? this.now() + this.cfg.retryMs : 0);
    } catch (err) {
      this.log.error({ err, notificationId: n.id }, 'could not record a notification attempt');
    }
    if (!out.ok)
      this.log.warn(
        { notificationId: n.id, channelId: n.channel_id, type: n.type, attempts, status, message: out.message },
        'notification not delivered',
      );
    this.inflight.delete(n.id);
    if (status === 'IN_PROGRESS') await this.scheduleNext().catch(() => {});
  }

  /** One timer, at the next due attempt: nothing wakes while nothing is pending. */
  private async scheduleNext(): Promise<void> {
    const next = await this.store.alerts.nextDue();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (next === null || this.stopped) return;
    this.timer = setTimeout(() => this.wake(), Math.max(50, next - this.now()));
    this.timer.unref();
  }
}
