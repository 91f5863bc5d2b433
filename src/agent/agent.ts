// The agent's lifecycle: register, pull jobs into a concurrency-limited queue, run them,
// deliver results (through the disk spool when the service is away), shut down gracefully.

import { Sandbox } from '../checks/sandbox.js';
import { TargetGuard } from '../domain/target-guard.js';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type http from 'node:http';
import PQueue from 'p-queue';
import { BROWSER_TYPES, runners, UPTIME_TYPES } from '../checks/index.js';
import { judge, PROTOCOL_VERSION, type Job, type ProbeOutcome, type RunResult } from '../domain/run.js';
import { capResult } from '../domain/result-cap.js';
import { ServiceClient, ProtocolError, type Registration } from './client.js';
import { REFUSED_FILE, Spool } from './spool.js';
import { EventReporter } from './events.js';
import { agentMetrics } from './metrics.js';
import { startHealthServer } from './health.js';
import type { AgentConfig } from './config.js';
import type { Logger } from '../log.js';
import { VERSION } from '../version.js';
import { icmpEngine } from '../checks/icmp-socket.js';
import { BrowserServers } from '../checks/pw/browser-server.js';
import { installedRuntimes, runtimeModules } from '../runtimes/catalog.js';
import type { BrowserEnv } from '../checks/types.js';

const MAX_BATCH = 1000;
/**
 * When the service has no backlog, leases go out at most this often, or as soon as the jobs
 * the last one brought are done: each carries the results finished since the last and waits
 * for the service's next scheduler tick, so a few requests a second serve any steady rate and
 * the agent wakes about twice a tick (jobs arrive, jobs done) however many jobs that tick holds.
 */
const LEASE_CADENCE_MS = 150;
/** Results no lease has taken by then are sent on their own (the lease may be long-polling). */
const RESULT_LINGER_MS = LEASE_CADENCE_MS;
/** How long a free slot waits for others before they are leased together. */
const SLOT_LINGER_MS = 3;

interface Held {
  job: Job;
  started: boolean;
}

type State = 'starting' | 'ready' | 'refused' | 'unreachable' | 'incompatible' | 'stopping';

/** The service speaks another protocol version: retrying cannot help, the agent must stop. */
export class IncompatibleServiceError extends Error {
  readonly code = 'OUTPOST_INCOMPATIBLE_SERVICE';
}

/** The service will never take what it answered this for: retrying the same results cannot help. */
function refusesResults(status: number): boolean {
  return status === 400 || status === 413 || status === 422;
}

export class Agent {
  readonly id = randomUUID();
  readonly metrics = agentMetrics();
  private state: State = 'starting';
  private registration: Registration | null = null;
  private client: ServiceClient;
  private queue: PQueue;
  /** Leased jobs, queued or running. */
  private held = new Map<string, Held>();
  /** The pull loop will lease within the cadence: results wait to go with it. */
  private leaseSoon = false;
  /** Aborted when the shutdown grace period runs out: every running job stops. */
  private abortRunning = new AbortController();
  private outbox: RunResult[] = [];
  /** Results of a lease the service refused, being delivered apart to find the one at fault. */
  private apart: Promise<void> = Promise.resolve();
  /** Results the service refused: counted, the last one described on /health. */
  private refused = { count: 0, last: null as null | { jobId: string; status: number; message: string; at: string } };
  private flushing: Promise<void> | null = null;
  private spool: Spool;
  private draining: Promise<void> | null = null;
  private pollAbort = new AbortController();
  private slotFreed: (() => void) | null = null;
  /** Ends the cadence wait early: the jobs it waits to report on are all done. */
  private allDone: (() => void) | null = null;
  private health: http.Server | null = null;
  private pulling: Promise<void> | null = null;
  private events: EventReporter;
  /** Browser jobs leased and not yet finished: they hold browser slots. */
  private browserHeld = 0;
  private browser: BrowserEnv | undefined;
  private guard: TargetGuard | undefined;
  private failWith: (err: Error) => void = () => {};
  /** Settles when the agent cannot go on (the service speaks another protocol version). */
  readonly fatal = new Promise<Error>((resolve) => {
    this.failWith = resolve;
  });

  constructor(
    private config: AgentConfig,
    private log: Logger,
  ) {
    this.client = new ServiceClient(config.serviceUrl, config.apiKey, this.id);
    this.queue = new PQueue({ concurrency: config.concurrency });
    // Every running job listens on this signal: as many listeners as slots is no leak.
    setMaxListeners(config.concurrency + 10, this.abortRunning.signal);
    this.spool = new Spool(config.spoolDir);
    if (config.blockPrivateTargets) this.guard = new TargetGuard(config.privateTargetsAllowed);
    this.events = new EventReporter((batch) => this.client.events(batch));
    if (config.profile === 'full') this.browser = this.browserEnv();
  }

  /** The runtimes it carries (asked for and installed) and its shared browsers. */
  private browserEnv(): BrowserEnv {
    const installed = new Set(installedRuntimes(this.config.runtimesDir));
    const wanted = this.config.runtimes ?? [...installed];
    for (const id of wanted.filter((r) => !installed.has(r))) {
      this.log.error(
        { runtimeId: id },
        `OUTPOST_RUNTIMES names runtime ${id}, which is not installed here (npm run runtimes:install -- ${id}); jobs pinned to it go to other agents`,
      );
    }
    return {
      servers: new BrowserServers(this.config.chromiumPath, this.log),
      runtimesDir: this.config.runtimesDir,
      chromiumPath: this.config.chromiumPath,
      carried: new Set(wanted.filter((r) => installed.has(r))),
      // Known once start() has tried one.
      sandbox: null,
      sandboxMissing: 'the sandbox has not been tried yet',
      sandboxRequired: this.config.sandbox === 'required',
      upload: (job, file, name, contentType) => this.client.uploadArtifact(job.id, file, name, contentType),
    };
  }

  get ready(): boolean {
    return this.state === 'ready';
  }

  async start(): Promise<void> {
    if (this.config.healthServer) {
      this.health = await startHealthServer(
        { ready: () => this.ready, health: () => this.healthReport(), registry: this.metrics.registry },
        this.config.healthPort,
        this.config.healthHost,
      );
      const addr = this.health.address();
      this.log.info({ port: typeof addr === 'object' && addr ? addr.port : this.config.healthPort }, 'health server listening');
    }
    this.log.info({ icmp: icmpEngine() }, 'ICMP checks will use this');
    if (this.browser) {
      const modules = [...this.browser.carried].map((id) => runtimeModules(id, this.config.runtimesDir));
      const { sandbox, reason } = await Sandbox.detect(this.config.sandbox, [this.config.runtimesDir, ...modules]);
      Object.assign(this.browser, { sandbox, sandboxMissing: reason });
      if (sandbox)
        this.log.info(
          { identity: sandbox.identity },
          'browser, multi-step and Playwright checks and scripts run in a sandbox of their own',
        );
      else if (this.config.sandbox === 'required')
        this.log.error({ reason }, 'browser checks will fail: OUTPOST_SANDBOX=required and no sandbox');
      else if (this.config.sandbox === 'auto')
        this.log.warn({ reason }, 'browser checks run WITHOUT a sandbox: their scripts can see this agent (see README, "Sandbox")');
    }
    if (!this.spool.empty) this.drain();
    this.pulling = this.pullLoop();
  }

  healthPort(): number | null {
    const addr = this.health?.address();
    return typeof addr === 'object' && addr ? addr.port : null;
  }

  private healthReport() {
    return {
      status: this.state === 'ready' ? 'ok' : this.state,
      version: VERSION,
      agentId: this.id,
      profile: this.config.profile,
      connected: this.state === 'ready',
      jobsRunning: [...this.held.values()].filter((h) => h.started).length,
      queueSize: this.queue.size,
      concurrency: this.config.concurrency,
      runtimes: [...(this.browser?.carried ?? [])],
      browserJobs: this.browserHeld,
      browserConcurrency: this.browser ? this.config.browserConcurrency : 0,
      sandbox: this.browser ? (this.browser.sandbox ? `bubblewrap (${this.browser.sandbox.identity})` : this.browser.sandboxMissing) : null,
      spooled: !this.spool.empty,
      // Delivery trouble an operator must see: results the service refused are not retried.
      refusedResults: this.refused.count,
      lastRefusedResult: this.refused.last,
    };
  }

  private async pullLoop(): Promise<void> {
    let backoff = 500;
    let lastBeat = Date.now();
    let lingerUntil = 0;
    let lastLease = { next: 0, full: true, waited: false };
    const batchWorthy = Math.ceil(this.config.concurrency / 4);
    while (this.state !== 'stopping') {
      try {
        if (!this.registration) {
          const registration = await this.client.register({
            version: VERSION,
            profile: this.config.profile,
            runtimes: [...(this.browser?.carried ?? [])],
            concurrency: this.config.concurrency,
          });
          if (registration.protocolVersion !== PROTOCOL_VERSION) {
            throw new IncompatibleServiceError(
              `the service at ${this.config.serviceUrl} speaks agent protocol version ${registration.protocolVersion}; this agent (${VERSION}) speaks version ${PROTOCOL_VERSION}: run an agent release that matches the service`,
            );
          }
          this.registration = registration;
          this.log.info(
            { agentId: this.id, location: this.registration.location.slugName ?? 'data centers' },
            'registered with the service',
          );
          this.setState('ready');
        }
        const leaseMs = this.registration.leaseSeconds * 1000;
        const waitMs = Math.min(this.registration.pollSeconds * 1000, Math.floor(leaseMs / 3));
        const free = this.config.concurrency - this.held.size;
        const beatIn = lastBeat + waitMs - Date.now();
        if (free < batchWorthy && beatIn > 0) {
          // Asking for one job each time a slot frees costs a request per job: wait for a
          // slot, then give others a few milliseconds to free up and lease them together.
          // All slots busy, the wait is bounded by the heartbeat that keeps leases alive.
          const now = Date.now();
          if (free <= 0) {
            this.flushSoon();
            await this.waitForSlot(beatIn);
            continue;
          }
          if (!lingerUntil) lingerUntil = now + SLOT_LINGER_MS;
          if (now < lingerUntil) {
            this.flushSoon();
            await this.waitForSlot(Math.min(beatIn, lingerUntil - now));
            continue;
          }
        }
        lingerUntil = 0;
        // A lease that got fewer jobs than it asked for emptied the queue: the next waits for
        // the cadence, or less once the jobs it brought are done (their results go with it).
        // After a full one there may be more waiting: lease again as soon as slots are free.
        const cadenceIn = lastLease.next - Date.now();
        if (!lastLease.full && !lastLease.waited && cadenceIn > 0) {
          this.leaseSoon = true;
          await this.pause(cadenceIn, this.held.size > 0);
          this.leaseSoon = false;
          lastLease.waited = true;
          continue;
        }
        const slots = Math.max(0, this.config.concurrency - this.held.size);
        const freeBrowser = this.browser?.carried.size ? Math.max(0, this.config.browserConcurrency - this.browserHeld) : 0;
        const results = this.draining ? [] : this.outbox.splice(0, MAX_BATCH);
        const startedAt = Date.now();
        let jobs: Job[];
        try {
          jobs = await this.client.lease(slots, freeBrowser, waitMs, [...this.held.keys()], results, this.pollAbort.signal);
        } catch (err) {
          if (results.length && err instanceof ProtocolError && refusesResults(err.status)) {
            // Something it carried is refused: sort that out apart; leasing goes on without them.
            this.sendApart(results);
            continue;
          }
          // Not acknowledged: they go out again, on their own or with the next lease.
          if (results.length) this.requeue(results);
          throw err;
        }
        lastBeat = Date.now();
        lastLease = {
          // Jobs it brought are given the cadence to finish, so their results go with the next.
          next: (jobs.length ? lastBeat : startedAt) + LEASE_CADENCE_MS,
          full: slots === 0 || jobs.length >= slots,
          waited: false,
        };
        this.setState('ready');
        backoff = 500;
        for (const job of jobs) this.accept(job);
      } catch (err) {
        if (this.stopping()) break;
        if (err instanceof IncompatibleServiceError) {
          this.setState('incompatible', err.message);
          this.failWith(err);
          return;
        }
        if (err instanceof ProtocolError && err.status === 401) {
          this.registration = null;
          this.setState('refused', `the service refused the private-location key: ${err.message}`);
          backoff = 5000;
        } else if (err instanceof ProtocolError && err.status === 409) {
          // The service restarted and forgot us: register again at once.
          this.registration = null;
          continue;
        } else {
          this.setState('unreachable', `cannot reach the service at ${this.config.serviceUrl}: ${(err as Error).message}`);
          backoff = Math.min(backoff * 2, 10_000);
        }
        await new Promise((r) => setTimeout(r, backoff));
      }
    }
  }

  /** Waits ms, or less when the agent stops (or, untilAllDone, when no job is held any more). */
  private pause(ms: number, untilAllDone = false): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.pollAbort.signal;
      const done = () => {
        clearTimeout(t);
        signal.removeEventListener('abort', done);
        this.allDone = null;
        resolve();
      };
      const t = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      if (untilAllDone) this.allDone = done;
    });
  }

  private waitForSlot(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.slotFreed = () => {
        this.slotFreed = null;
        done();
      };
    });
  }

  // A method, so TypeScript does not narrow the state across awaits.
  private stopping(): boolean {
    return this.state === 'stopping';
  }

  private setState(next: State, why?: string): void {
    if (this.state === next || this.state === 'stopping') return;
    this.state = next;
    if (next === 'ready') this.log.info('pulling jobs');
    else this.log.error({ state: next }, why ?? next);
  }

  private accept(job: Job): void {
    const entry: Held = { job, started: false };
    this.held.set(job.id, entry);
    if (BROWSER_TYPES.has(job.checkType)) this.browserHeld++;
    this.enqueue(entry);
  }

  private enqueue(entry: Held): void {
    const { job } = entry;
    const browser = BROWSER_TYPES.has(job.checkType);
    this.metrics.queueDepth.set(this.queue.size + 1);
    void this.queue.add(async () => {
      if (!this.held.has(job.id)) return; // handed back at shutdown
      entry.started = true;
      this.log.debug({ jobId: job.id, checkId: job.checkId, checkType: job.checkType }, 'job started');
      this.metrics.running.inc();
      this.metrics.queueDepth.set(this.queue.size);
      try {
        this.deliver(await this.run(job, this.abortRunning.signal));
      } finally {
        this.metrics.running.dec();
        this.held.delete(job.id);
        if (browser) this.browserHeld--;
        this.slotFreed?.();
        if (this.held.size === 0) this.allDone?.();
      }
    });
  }

  private async run(job: Job, stop: AbortSignal): Promise<RunResult> {
    const startedAt = Date.now();
    const runner = runners[job.checkType];
    const refuse = this.config.profile === 'uptime' && !UPTIME_TYPES.has(job.checkType);
    if (!runner || refuse) {
      return this.notRun(
        job,
        startedAt,
        refuse
          ? `this agent runs the uptime profile and cannot run ${job.checkType} checks`
          : `this agent cannot run ${job.checkType} checks`,
      );
    }
    let probe: ProbeOutcome;
    try {
      // Runners stop at the deadline themselves; `stop` only cuts them short at shutdown.
      probe = await runner(job, {
        signal: stop,
        deadline: startedAt + job.timeoutMs,
        log: this.log,
        browser: this.browser,
        osResolver: this.config.useOsDnsResolver,
        guard: this.guard,
      });
    } catch (err) {
      // A runner that throws is a bug in the agent, not in the target: say so, keep serving.
      this.log.error({ err, jobId: job.id }, 'runner crashed');
      this.report({ kind: 'runner_crash', checkType: job.checkType, message: (err as Error).message });
      return this.notRun(job, startedAt, `the ${job.checkType} runner failed: ${(err as Error).message}`);
    }
    if (probe.hasErrors) {
      // The agent could not run it (no browser, runtime missing): the operator must hear of it.
      this.log.error({ jobId: job.id, checkType: job.checkType, error: probe.error }, 'job could not be run');
      this.report({ kind: 'job_not_run', checkType: job.checkType, message: probe.error });
    }
    const v = judge(job.check, probe);
    const stoppedAt = Date.now();
    this.metrics.jobs.inc({ check_type: job.checkType, outcome: v.hasFailures ? 'failed' : v.isDegraded ? 'degraded' : 'passed' });
    this.metrics.duration.observe({ check_type: job.checkType }, (stoppedAt - startedAt) / 1000);
    // Written out, not spread: V8 (Node 20) builds `{ ...a, b, c }` on a slow path, about a
    // microsecond per added property, and this runs for every job.
    return capResult({
      jobId: job.id,
      checkId: job.checkId,
      location: job.location,
      dueAt: job.dueAt,
      startedAt,
      stoppedAt,
      responseTime: probe.responseTime,
      hasFailures: v.hasFailures,
      hasErrors: probe.hasErrors ?? false,
      isDegraded: v.isDegraded,
      overMaxResponseTime: v.overMaxResponseTime,
      error: v.error,
      detail: probe.detail,
    });
  }

  /** The result of a job the agent could not run at all. */
  private notRun(job: Job, startedAt: number, error: string): RunResult {
    this.metrics.jobs.inc({ check_type: job.checkType, outcome: 'error' });
    return {
      jobId: job.id,
      checkId: job.checkId,
      location: job.location,
      dueAt: job.dueAt,
      startedAt,
      stoppedAt: Date.now(),
      responseTime: 0,
      hasFailures: true,
      hasErrors: true,
      isDegraded: false,
      overMaxResponseTime: false,
      error,
      detail: {},
    };
  }

  /** Results a lease took but could not deliver: first in line again. */
  private requeue(results: RunResult[]): void {
    this.outbox.unshift(...results);
    this.flushSoon();
  }

  /** No lease is about to take the waiting results: they go on their own after the linger. */
  private flushSoon(): void {
    if (this.outbox.length && !this.flushing) this.flushing = this.flushLoop();
  }

  private deliver(r: RunResult): void {
    if (this.draining) {
      // Older results wait on disk: newer ones queue behind them to keep the order.
      this.spool.append([r]);
      this.metrics.spooled.inc();
      return;
    }
    this.outbox.push(r);
    // A lease due within the cadence takes them along: no request (and no timer) of their own.
    if (!this.flushing && !this.leaseSoon) this.flushing = this.flushLoop();
  }

  /**
   * Delivers results. A batch the service refuses as such (400, 413) holds at least one result
   * it will never take: halves are sent until the refused ones are found and set aside, so the
   * rest is delivered and nothing queues behind them for ever. Other failures are thrown.
   */
  private async send(batch: RunResult[]): Promise<void> {
    try {
      await this.client.deliver(batch);
    } catch (err) {
      if (!(err instanceof ProtocolError) || !refusesResults(err.status)) throw err;
      if (batch.length === 1) return this.setAside(batch[0], err);
      const half = batch.length >> 1;
      await this.send(batch.slice(0, half));
      await this.send(batch.slice(half));
    }
  }

  /** Results a lease carried and the service refused: delivered on their own, in order. */
  private sendApart(results: RunResult[]): void {
    this.apart = this.apart.then(() => this.send(results)).catch((err) => this.keepOnDisk(results, err));
  }

  /** The service is away: results wait in the spool, delivered from there in order. */
  private keepOnDisk(results: RunResult[], err: unknown): void {
    this.metrics.deliveryFailures.inc();
    this.log.warn({ count: results.length, err: (err as Error).message }, 'could not deliver results; keeping them on disk');
    this.spool.append(results);
    this.metrics.spooled.inc(results.length);
    this.drain();
  }

  private setAside(r: RunResult, err: ProtocolError): void {
    this.metrics.refused.inc();
    const kept = this.spool.setAside(r, `${err.status} ${err.message}`);
    this.refused = {
      count: this.refused.count + 1,
      last: { jobId: r.jobId, status: err.status, message: err.message.slice(0, 500), at: new Date().toISOString() },
    };
    this.log.error(
      { jobId: r.jobId, checkId: r.checkId, status: err.status, reason: err.message.slice(0, 500), keptIn: kept ? REFUSED_FILE : null },
      'the service refused a result; it is set aside and not sent again',
    );
  }

  private async flushLoop(): Promise<void> {
    await new Promise((r) => setTimeout(r, RESULT_LINGER_MS));
    while (this.outbox.length) {
      const batch = this.outbox.splice(0, MAX_BATCH);
      try {
        await this.send(batch);
      } catch (err) {
        this.keepOnDisk(batch.concat(this.outbox.splice(0)), err);
      }
    }
    this.flushing = null;
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = (async () => {
      let backoff = 500;
      let delivered = 0;
      for (;;) {
        this.spool.rotate();
        const segs = this.spool.segments();
        if (segs.length === 0) break;
        try {
          for (const seg of segs) {
            const { results, unreadable } = this.spool.read(seg);
            if (unreadable)
              this.log.warn({ segment: seg, lines: unreadable }, 'spooled lines that cannot be read were dropped (cut short by a crash?)');
            for (let i = 0; i < results.length; i += MAX_BATCH) await this.send(results.slice(i, i + MAX_BATCH));
            delivered += results.length;
            this.spool.remove(seg);
          }
          backoff = 500;
        } catch {
          if (this.state === 'stopping') break;
          await new Promise((r) => setTimeout(r, backoff));
          backoff = Math.min(backoff * 2, 10_000);
        }
      }
      if (delivered) this.log.info({ results: delivered }, 'spooled results delivered');
    })().finally(() => {
      this.draining = null;
      // A result spooled while the last segment was being sent must not wait for the next outage.
      if (!this.spool.empty && this.state !== 'stopping') this.drain();
    });
  }

  /** Error-level events for the service's log, unless EXTERNAL_OBSERVABILITY=off. */
  private report(event: Record<string, unknown>): void {
    if (!this.config.externalObservability) return;
    this.events.add({ ...event, at: new Date().toISOString() });
  }

  /** SIGTERM: not ready at once, stop pulling, let running jobs finish, deliver, leave. */
  async stop(): Promise<void> {
    if (this.state === 'stopping') return;
    this.state = 'stopping';
    this.log.info({ running: this.held.size, graceMs: this.config.shutdownGraceMs }, 'shutting down');
    this.pollAbort.abort();
    this.slotFreed?.();
    await this.pulling?.catch(() => {});
    // Jobs leased but not started go back to the service for another agent.
    const unstarted = [...this.held.values()].filter((h) => !h.started);
    for (const h of unstarted) this.held.delete(h.job.id);
    this.queue.clear();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), this.config.shutdownGraceMs)));
    if ((await Promise.race([this.queue.onIdle(), grace])) === 'late') {
      this.log.warn({ running: this.held.size }, 'grace period over: aborting running jobs');
      this.abortRunning.abort();
      await this.queue.onIdle();
    }
    clearTimeout(timer);
    await this.flushing;
    await this.apart;
    await this.draining?.catch(() => {});
    if (this.outbox.length) this.spool.append(this.outbox.splice(0));
    await this.client.deregister(unstarted.map((h) => h.job.id)).catch(() => {});
    await this.client.close().catch(() => {});
    await this.browser?.servers.close().catch(() => {});
    await new Promise<void>((r) => (this.health ? this.health.close(() => r()) : r()));
    this.log.info('stopped');
  }
}
