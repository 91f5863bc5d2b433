// Delivers what the service stored to send (outboxes: alert notifications, emails to status-page
// subscribers). Each message is leased (its next attempt moved past the send's time limit)
// before it is sent and marked after, so a crash between the two sends it again after the
// restart, never loses it; receivers deduplicate by the id each carries. Sends run side by side:
// a slow or dead receiver holds up only its own messages, and result ingest never waits on any.

import type { Logger } from '../log.js';
import type { NotifyConfig, SendOutcome } from './notify/index.js';

export interface NotifierConfig extends NotifyConfig {
  /** Between a failed attempt and the next. */
  retryMs: number;
  /** Attempts in all, the first included. */
  attempts: number;
}

const BATCH = 100;

/** A table of messages to send, and how to send one. */
export interface Outbox<M extends { id: string; attempts: number }> {
  due(now: number, limit: number): Promise<M[]>;
  nextDue(): Promise<number | null>;
  lease(ids: string[], until: number): Promise<void>;
  attempted(
    id: string,
    status: 'SUCCESS' | 'FAILURE' | 'IN_PROGRESS',
    attempts: number,
    result: Record<string, unknown>,
    next: number,
  ): Promise<void>;
  /** Messages nothing will ever send (their channel is gone): marked failed. */
  orphans?(): Promise<string[]>;
  send(m: M): Promise<SendOutcome>;
  /** What the log says of a message that failed (never its receiver's secrets). */
  describe(m: M): Record<string, unknown>;
}

export class Notifier {
  private inflight = new Set<string>();
  private draining: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each outbox has its own message type
    private readonly outboxes: Outbox<any>[],
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
    for (const outbox of this.outboxes) {
      for (const id of (await outbox.orphans?.()) ?? [])
        await outbox.attempted(id, 'FAILURE', 0, { message: 'the alert channel was deleted before this was sent' }, 0);
      const due = (await outbox.due(this.now(), BATCH)).filter((m) => !this.inflight.has(m.id));
      // Leased first, in one write: found again only once these attempts can no longer be under way.
      await outbox.lease(
        due.map((m) => m.id),
        this.now() + this.cfg.timeoutMs + 5000,
      );
      for (const m of due) {
        this.inflight.add(m.id);
        void this.deliver(outbox, m);
      }
      if (due.length === BATCH) this.again = true;
    }
    await this.scheduleNext();
  }

  private async deliver<M extends { id: string; attempts: number }>(outbox: Outbox<M>, m: M): Promise<void> {
    let out: SendOutcome;
    try {
      out = await outbox.send(m);
    } catch (err) {
      out = { ok: false, retry: true, message: (err as Error).message };
    }
    const attempts = m.attempts + 1;
    const result = { status: out.status ?? null, message: out.message, attempts };
    const status = out.ok ? 'SUCCESS' : out.retry && attempts < this.cfg.attempts ? 'IN_PROGRESS' : 'FAILURE';
    try {
      await outbox.attempted(m.id, status, attempts, result, status === 'IN_PROGRESS' ? this.now() + this.cfg.retryMs : 0);
    } catch (err) {
      this.log.error({ err, id: m.id }, 'could not record a delivery attempt');
    }
    if (!out.ok) this.log.warn({ ...outbox.describe(m), attempts, status, message: out.message }, 'notification not delivered');
    this.inflight.delete(m.id);
    if (status === 'IN_PROGRESS') await this.scheduleNext().catch(() => {});
  }

  /** One timer, at the next due attempt: nothing wakes while nothing is pending. */
  private async scheduleNext(): Promise<void> {
    const times = (await Promise.all(this.outboxes.map((o) => o.nextDue()))).filter((t): t is number => t !== null);
    const next = times.length ? Math.min(...times) : null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (next === null || this.stopped) return;
    this.timer = setTimeout(() => this.wake(), Math.max(50, next - this.now()));
    this.timer.unref();
  }
}
