// Error-level events (runner crashes, jobs an agent could not run) for the service's log.
// Batched: at most one request per interval, a bounded number of events each; whatever is still
// pending after a send is sent on the next turn, so a burst drains instead of stalling.

export type AgentEvent = Record<string, unknown>;

export interface EventReporterOptions {
  intervalMs: number;
  batchSize: number;
  /** Events kept while the service is slow or away; beyond it the oldest are dropped. */
  maxPending: number;
  /** Runs fn after ms; tests pass their own to drive time. */
  schedule: (fn: () => void, ms: number) => void;
}

const DEFAULTS: EventReporterOptions = {
  intervalMs: 1000,
  batchSize: 100,
  maxPending: 1000,
  schedule: (fn, ms) => setTimeout(fn, ms).unref(),
};

export class EventReporter {
  private pending: AgentEvent[] = [];
  private armed = false;
  private readonly opts: EventReporterOptions;
  dropped = 0;

  constructor(
    private send: (batch: AgentEvent[]) => Promise<void>,
    opts: Partial<EventReporterOptions> = {},
  ) {
    this.opts = { ...DEFAULTS, ...opts };
  }

  add(event: AgentEvent): void {
    this.pending.push(event);
    if (this.pending.length > this.opts.maxPending) {
      this.pending.shift();
      this.dropped++;
    }
    this.arm();
  }

  get size(): number {
    return this.pending.length;
  }

  private arm(): void {
    if (this.armed || this.pending.length === 0) return;
    this.armed = true;
    this.opts.schedule(() => void this.flush(), this.opts.intervalMs);
  }

  private async flush(): Promise<void> {
    const batch = this.pending.splice(0, this.opts.batchSize);
    try {
      await this.send(batch);
    } catch {
      // Best effort: these events are also in the agent's own log.
    }
    this.armed = false;
    this.arm();
  }
}
