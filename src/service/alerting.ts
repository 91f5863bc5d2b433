// The alert engine: turns FINAL results into alert-state changes, check alerts and
// notifications for the check's subscribed channels (none while it is muted). Decisions are made
// before a batch of results is stored and written in the same transaction, so a result stored
// is a result judged, and a decided notification is in the outbox before anyone can lose it.
// A passing run of a check that was passing changes nothing and costs a map lookup.

import type { CheckGroups } from './check-groups.js';
import type { JobRecord } from './store/jobs.js';
import { randomUUID } from 'node:crypto';
import { newOrderedId } from './secrets.js';
import {
  INITIAL_ALERT_STATE,
  dueReminder,
  nextReminderAt,
  onRun,
  runHealth,
  sslAlertDue,
  type AlertSettings,
  type AlertState,
  type AlertType,
  type Health,
} from '../domain/alert-state.js';
import { alertEvent, channelWants } from '../domain/alert-event.js';
import { DEFAULT_ALERT_SETTINGS } from './routes/check-fields.js';
import type { Logger } from '../log.js';
import type { RunResult } from '../domain/run.js';
import type { Repositories, Store } from './store/index.js';
import type { AlertWrites } from './store/alerts.js';
import type { Delivered } from './store/results.js';
import type { CheckRow } from './store/checks.js';

export interface Judged {
  /** The result's id, as it will be stored. */
  id: string;
  result: RunResult;
  accountId: string;
  checkId: string;
  location: string;
}

export interface Decisions {
  writes: AlertWrites;
  states: Map<string, AlertState>;
  /** Status-page incidents that checks' triggerIncident opens or resolves. */
  incidents: IncidentAction[];
}

type IncidentAction =
  | {
      kind: 'open';
      id: string;
      accountId: string;
      name: string;
      severity: string;
      serviceId: string;
      description: string;
      notifySubscribers: boolean;
    }
  | { kind: 'resolve'; incidentId: string; description: string; notifySubscribers: boolean };

/** How long the first result of a parallel run waits for the others before it is forgotten. */
const PARALLEL_RUN_WAIT_MS = 15 * 60_000;

const healthOf = (r: RunResult): Health => (r.hasFailures ? 'FAILING' : r.isDegraded ? 'DEGRADED' : 'PASSING');

type HttpDetail = { apiCheckResult?: { tls?: { daysRemaining?: number | null } | null; request?: { url?: string } } };

/** Days the certificate a URL or API run was served has left, if it was served one. */
const sslDaysOf = (r: RunResult): number | null => (r.detail as HttpDetail | undefined)?.apiCheckResult?.tls?.daysRemaining ?? null;

function hostOf(r: RunResult): string {
  try {
    return new URL((r.detail as HttpDetail).apiCheckResult?.request?.url ?? '').hostname;
  } catch {
    return '';
  }
}

function settingsOf(row: CheckRow): AlertSettings {
  const c = row.config as { useGlobalAlertSettings?: boolean; alertSettings?: AlertSettings | null };
  return c.useGlobalAlertSettings === false && c.alertSettings ? c.alertSettings : (DEFAULT_ALERT_SETTINGS as AlertSettings);
}

/**
 * Stores results judged: with what the engine decided about them, in one transaction when it
 * decided anything; the engine adopts its decisions once that has committed.
 */
export async function storeJudged(
  store: Pick<Repositories, 'results' | 'tx'>,
  alerts: AlertEngine | null,
  delivered: Delivered[],
  writtenJobIds: string[],
  retries: JobRecord[] = [],
): Promise<void> {
  const decisions = alerts ? await alerts.decide(delivered) : null;
  if (!decisions && !retries.length) return store.results.store(delivered, writtenJobIds);
  await store.tx(async (tx) => {
    await tx.results.store(delivered, writtenJobIds);
    // A retry is stored with the attempt it follows: a restart between the two loses neither.
    if (retries.length) await tx.jobs.insert(retries);
    if (decisions) await alerts!.write(tx, decisions);
  });
  if (decisions) alerts!.committed(decisions);
}

export class AlertEngine {
  private states = new Map<string, AlertState>();
  private reminderTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly resultLink: (checkId: string, resultId: string) => string,
    /** Called once notifications are stored: the notifier sends them. */
    private readonly stored: () => void,
    private readonly now: () => number = Date.now,
  ) {}

  async load(): Promise<void> {
    this.states = await this.store.alerts.states();
    this.armReminders();
  }

  stop(): void {
    this.stopped = true;
    if (this.reminderTimer) clearTimeout(this.reminderTimer);
  }

  /**
   * What a batch of FINAL results changes; nothing is written yet. Null: nothing changes. The
   * results that matter get their ids here (the alerts and notifications quote them).
   */
  async decide(all: Delivered[]): Promise<Decisions | null> {
    // Only FINAL results count: a run that is retried has not failed yet.
    const batch = all.some((d) => d.resultType === 'ATTEMPT') ? all.filter((d) => d.resultType !== 'ATTEMPT') : all;
    // Most batches: passing runs of passing checks. Nothing to sort, build or write.
    const checkIds = new Set<string>();
    for (const d of batch) {
      const s = this.states.get(d.job.checkId);
      if (
        d.job.parallel !== undefined ||
        d.result.hasFailures ||
        d.result.isDegraded ||
        (s !== undefined && (s.health !== 'PASSING' || s.alerted !== 'NONE')) ||
        sslAlertDue(s ?? INITIAL_ALERT_STATE, sslDaysOf(d.result), d.result.stoppedAt)
      )
        checkIds.add(d.job.checkId);
    }
    if (!checkIds.size) return null;
    // Every result of a check that matters, in order: a recovery may follow a failure in one batch.
    const matters = batch.filter((d) => checkIds.has(d.job.checkId));
    const states = new Map<string, AlertState>();
    const writes: AlertWrites = { states: [], alerts: [], notifications: [] };
    const incidents: IncidentAction[] = [];
    const checks = new Map<string, CheckRow | null>();
    for (const item of matters.sort((x, y) => x.result.stoppedAt - y.result.stoppedAt)) {
      item.id ??= newOrderedId();
      let j: Judged = {
        id: item.id,
        result: item.result,
        accountId: item.accountId,
        checkId: item.job.checkId,
        location: item.job.location,
      };
      // A parallel run is judged once all its locations are in, as one run.
      const run = item.job.parallel ? this.collect(item.job.parallel, j, item.result.jobId) : null;
      if (run === 'incomplete') continue;
      const prev = states.get(j.checkId) ?? this.states.get(j.checkId) ?? INITIAL_ALERT_STATE;
      const sslDays = sslDaysOf(j.result);
      const sslDue = sslAlertDue(prev, sslDays, j.result.stoppedAt);
      let health = healthOf(j.result);
      let row: CheckRow | null | undefined;
      if (run) {
        row = await this.checkOf(checks, j);
        if (!row) continue;
        health = runHealth(
          run.map((r) => ({ hasFailures: r.result.hasFailures, isDegraded: !!r.result.isDegraded })),
          settingsOf(row),
        );
        // The alert quotes a failed location when there is one.
        if (health !== 'PASSING') j = run.find((r) => r.result.hasFailures) ?? run.find((r) => r.result.isDegraded) ?? j;
      }
      const changes = !(health === 'PASSING' && prev.health === 'PASSING' && prev.alerted === 'NONE');
      if (!changes && !sslDue) continue;
      row ??= await this.checkOf(checks, j);
      if (!row) continue; // deleted meanwhile
      let next = prev;
      if (changes) {
        const settings = settingsOf(row);
        this.reminderSettings.set(j.checkId, settings);
        const d = onRun(prev, health, settings, j.result.stoppedAt);
        next = d.state;
        if (d.notify) await this.raise(writes, row, j, d.notify, 0);
        if (d.notify === 'ALERT_FAILURE' || d.notify === 'ALERT_RECOVERY') next = this.incident(incidents, row, j, d.notify, next);
      }
      if (sslDue) {
        // Once a day at most; each channel decides by its own sslExpiryThreshold.
        next = { ...next, sslToldOn: new Date(j.result.stoppedAt).toISOString().slice(0, 10) };
        await this.raise(writes, row, j, 'ALERT_SSL', 0, sslDays!);
      }
      states.set(j.checkId, next);
    }
    if (!states.size) return null;
    for (const [id, s] of states) writes.states.push([id, s]);
    return { writes, states, incidents };
  }

  private async checkOf(checks: Map<string, CheckRow | null>, j: Judged): Promise<CheckRow | null> {
    if (!checks.has(j.checkId)) checks.set(j.checkId, this.effective(await this.store.checks.get(j.checkId, j.accountId)));
    return checks.get(j.checkId) ?? null;
  }

  /** Results of parallel runs still waiting for some of their locations. */
  private parallelRuns = new Map<string, { at: number; results: Map<string, Judged> }>();

  /** Adds a location's result to its run: the run's results once all are in. */
  private collect(p: { at: number; of: number }, j: Judged, jobId: string): Judged[] | 'incomplete' {
    const key = `${j.checkId}:${p.at}`;
    let run = this.parallelRuns.get(key);
    if (!run) {
      // A run whose other locations never report (dropped runs) is forgotten after a while.
      for (const [k, r] of this.parallelRuns) if (r.at < p.at - PARALLEL_RUN_WAIT_MS) this.parallelRuns.delete(k);
      run = { at: p.at, results: new Map() };
      this.parallelRuns.set(key, run);
    }
    run.results.set(jobId, j);
    if (run.results.size < p.of) return 'incomplete';
    this.parallelRuns.delete(key);
    return [...run.results.values()];
  }

  /** Writes decisions in the caller's transaction. */
  async write(tx: Repositories, d: Decisions): Promise<void> {
    await tx.alerts.write(d.writes);
    for (const a of d.incidents) {
      if (a.kind === 'open')
        await tx.serviceIncidents.open(
          a.accountId,
          { id: a.id, name: a.name, severity: a.severity, serviceIds: [a.serviceId] },
          { status: 'INVESTIGATING', description: a.description, notifySubscribers: a.notifySubscribers },
        );
      else
        await tx.serviceIncidents.addUpdate(a.incidentId, {
          status: 'RESOLVED',
          description: a.description,
          notifySubscribers: a.notifySubscribers,
        });
    }
  }

  /**
   * A check with triggerIncident opens a status-page incident when its failure is told (after
   * its threshold: never on one flaky run) and resolves it when its recovery is told. Nothing
   * opens while it is muted or silenced by maintenance.
   */
  private incident(out: IncidentAction[], row: CheckRow, j: Judged, type: AlertType, next: AlertState): AlertState {
    const t = row.config.triggerIncident as {
      serviceId: string;
      severity: string;
      name: string;
      description: string;
      notifySubscribers: boolean;
    } | null;
    if (type === 'ALERT_FAILURE') {
      if (!t || next.incidentId || row.config.muted || this.silenced(row, j.result.stoppedAt)) return next;
      const id = randomUUID();
      out.push({ kind: 'open', id, accountId: row.account_id, ...t });
      return { ...next, incidentId: id };
    }
    if (!next.incidentId) return next;
    // Status pages are public: the resolution names no check (its name may say what it probes).
    // Subscribers told of the incident hear of its end.
    out.push({
      kind: 'resolve',
      incidentId: next.incidentId,
      description: 'Resolved: the service is working normally again.',
      notifySubscribers: t?.notifySubscribers === true,
    });
    return { ...next, incidentId: null };
  }

  /** The transaction committed: the decisions hold from now on. */
  committed(d: Decisions): void {
    for (const [id, s] of d.states) this.states.set(id, s);
    this.armReminders();
    if (d.writes.notifications.length || d.incidents.some((i) => i.notifySubscribers)) this.stored();
  }

  /** A check alert, and a notification for each activated subscription whose channel wants it. */
  private async raise(writes: AlertWrites, row: CheckRow, j: Judged, type: AlertType, reminder: number, sslDays?: number): Promise<void> {
    const alertId = randomUUID();
    const c = row.config as { tags?: string[]; description?: string | null; muted?: boolean };
    const statusCode = (j.result.detail?.apiCheckResult as { response?: { status?: number } } | undefined)?.response?.status ?? null;
    writes.alerts.push({
      id: alertId,
      accountId: row.account_id,
      checkId: row.id,
      name: row.name,
      alertType: type,
      checkType: row.check_type,
      runLocation: j.location,
      responseTime: j.result.responseTime,
      error: j.result.error,
      statusCode,
      startedAt: new Date(j.result.startedAt),
    });
    // Muted, or silenced by maintenance: the state is tracked and the alert recorded, and no
    // one is told (nor after the window, while the failure lasts: it counts as told).
    if (c.muted || this.silenced(row, j.result.stoppedAt)) return;
    const event = alertEvent({
      alertType: type,
      reminder,
      check: { id: row.id, name: row.name, checkType: row.check_type, tags: c.tags ?? [], description: c.description },
      result: {
        id: j.id,
        location: j.location,
        responseTime: j.result.responseTime,
        error: j.result.error,
        startedAt: j.result.startedAt,
        statusCode,
      },
      resultLink: this.resultLink(row.id, j.id),
      ssl: sslDays === undefined ? undefined : { daysRemaining: sslDays, domain: hostOf(j.result) },
    });
    const group = this.groups?.alertingGroup(row) ?? null;
    const subscriptions = group === null ? this.store.alertChannels.ofChecks([row.id]) : this.store.alertChannels.ofGroups([group]);
    for (const s of await subscriptions) {
      if (!s.activated) continue;
      if (
        !channelWants(
          {
            sendFailure: Boolean(s.send_failure),
            sendDegraded: Boolean(s.send_degraded),
            sendRecovery: Boolean(s.send_recovery),
            sslExpiry: Boolean(s.ssl_expiry),
            sslExpiryThreshold: Number(s.ssl_expiry_threshold),
          },
          type,
          sslDays,
        )
      )
        continue;
      writes.notifications.push({
        id: randomUUID(),
        accountId: row.account_id,
        channelId: Number(s.channel_id),
        checkId: row.id,
        checkAlertId: alertId,
        checkResultId: j.id,
        alertType: type,
        event,
        nextAttemptAt: this.now(),
      });
    }
  }

  /** Whether maintenance silences a check's alerts at a time (the service sets it). */
  silenced: (row: CheckRow, t: number) => boolean = () => false;

  /** Set when checks can be in groups: a member alerts with its group's settings and channels. */
  groups: CheckGroups | null = null;

  private effective(row: CheckRow | null): CheckRow | null {
    return row && this.groups ? this.groups.effective(row) : row;
  }

  // Reminders: one timer at the earliest one due; each repeats the failure alert of its check.
  private reminderSettings = new Map<string, AlertSettings>();

  private armReminders(): void {
    if (this.reminderTimer) clearTimeout(this.reminderTimer);
    this.reminderTimer = null;
    if (this.stopped) return;
    let next = Infinity;
    for (const [id, s] of this.states) {
      if (s.alerted !== 'FAILURE' || s.health !== 'FAILING') continue;
      const at = nextReminderAt(s, this.reminderSettings.get(id) ?? { reminders: { amount: 100000, interval: 1 } });
      if (at !== null) next = Math.min(next, at);
    }
    if (next === Infinity) return;
    this.reminderTimer = setTimeout(
      () => void this.remind().catch((err) => this.log.error({ err }, 'reminders failed')),
      Math.max(1000, next - this.now()),
    );
    this.reminderTimer.unref();
  }

  /** Sends the reminders due now; the check's own settings decide (the timer only guesses). */
  private async remind(): Promise<void> {
    const now = this.now();
    const writes: AlertWrites = { states: [], alerts: [], notifications: [] };
    const states = new Map<string, AlertState>();
    for (const [id, s] of this.states) {
      if (s.alerted !== 'FAILURE' || s.health !== 'FAILING') continue;
      const row = this.effective(await this.store.checks.getAny(id));
      if (!row) continue;
      const settings = settingsOf(row);
      this.reminderSettings.set(id, settings);
      const due = dueReminder(s, settings, now);
      if (!due) continue;
      states.set(id, due.state);
      // A reminder quotes the latest failure.
      const latest = await this.store.results.latestOf(id);
      if (!latest) continue;
      const result = {
        responseTime: latest.response_time,
        error: latest.error,
        startedAt: latest.started_at.getTime(),
        stoppedAt: latest.stopped_at.getTime(),
        detail: latest.detail,
      } as RunResult;
      await this.raise(
        writes,
        row,
        { id: latest.id, accountId: row.account_id, checkId: id, location: latest.run_location, result },
        'ALERT_FAILURE',
        due.sequence,
      );
    }
    for (const [id, s] of states) writes.states.push([id, s]);
    if (states.size) {
      await this.store.tx((tx) => tx.alerts.write(writes));
      this.committed({ writes, states, incidents: [] });
    } else this.armReminders();
  }
}
