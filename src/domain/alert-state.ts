// The alert state of a check: what each FINAL run changes, and when someone is told. Pure, with
// the clock passed in. ✅ passing, ⚠️ degraded, ❌ failing; the escalation threshold (runs, or
// minutes) decides when a bad state is worth a notification; de-escalation, escalation from a
// notified degraded state and recovery are told at once; reminders repeat a failure alert.

export type Health = 'PASSING' | 'DEGRADED' | 'FAILING';

export const ALERT_TYPES = [
  'NO_ALERT',
  'ALERT_FAILURE',
  'ALERT_FAILURE_REMAIN',
  'ALERT_FAILURE_DEGRADED',
  'ALERT_RECOVERY',
  'ALERT_DEGRADED',
  'ALERT_DEGRADED_REMAIN',
  'ALERT_DEGRADED_FAILURE',
  'ALERT_DEGRADED_RECOVERY',
  'ALERT_SSL',
] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

export interface AlertSettings {
  escalationType?: 'RUN_BASED' | 'TIME_BASED';
  runBasedEscalation?: { failedRunThreshold?: number };
  timeBasedEscalation?: { minutesFailingThreshold?: number };
  reminders?: { amount?: number; interval?: number };
  parallelRunFailureThreshold?: { enabled?: boolean; percentage?: number };
}

export interface AlertState {
  /** As of the last FINAL run. */
  health: Health;
  /** What the last notification said is going on (NONE: nothing, or it recovered). */
  alerted: 'NONE' | 'FAILURE' | 'DEGRADED';
  /** Consecutive runs in the current health. */
  runs: number;
  /** When the current health began (epoch ms). */
  since: number;
  /** Reminders sent for the current failure alert. */
  reminders: number;
  /** When the last notification went out (epoch ms). */
  notifiedAt: number | null;
  /** The UTC day (YYYY-MM-DD) an expiring certificate was last told of. */
  sslToldOn?: string | null;
  /** The status-page incident the check's triggerIncident opened for the current failure. */
  incidentId?: string | null;
}

export const INITIAL_ALERT_STATE: AlertState = { health: 'PASSING', alerted: 'NONE', runs: 0, since: 0, reminders: 0, notifiedAt: null };

export interface AlertDecision {
  state: AlertState;
  /** The run's transition, recorded whatever is sent. */
  transition: AlertType;
  /** The notification to send, if any. */
  notify: AlertType | null;
}

const TRANSITIONS: Record<Health, Record<Health, AlertType>> = {
  PASSING: { PASSING: 'NO_ALERT', DEGRADED: 'ALERT_DEGRADED', FAILING: 'ALERT_FAILURE' },
  DEGRADED: { PASSING: 'ALERT_DEGRADED_RECOVERY', DEGRADED: 'ALERT_DEGRADED_REMAIN', FAILING: 'ALERT_DEGRADED_FAILURE' },
  FAILING: { PASSING: 'ALERT_RECOVERY', DEGRADED: 'ALERT_FAILURE_DEGRADED', FAILING: 'ALERT_FAILURE_REMAIN' },
};

/** Whether a bad state has lasted long enough to tell: N runs in a row, or N minutes. */
function thresholdReached(s: AlertState, settings: AlertSettings, now: number): boolean {
  if (settings.escalationType === 'TIME_BASED') {
    const minutes = settings.timeBasedEscalation?.minutesFailingThreshold ?? 5;
    return now - s.since >= minutes * 60_000;
  }
  return s.runs >= (settings.runBasedEscalation?.failedRunThreshold ?? 1);
}

/** A FINAL run of the check came in: its health, at `now`. */
export function onRun(prev: AlertState, health: Health, settings: AlertSettings, now: number): AlertDecision {
  const transition = TRANSITIONS[prev.health][health];
  const same = prev.health === health;
  const s: AlertState = { ...prev, health, runs: same ? prev.runs + 1 : 1, since: same ? prev.since : now };
  const told = (notify: AlertType, alerted: AlertState['alerted']): AlertDecision => ({
    state: { ...s, alerted, reminders: 0, notifiedAt: now },
    transition,
    notify,
  });
  const quiet = (state: AlertState = s): AlertDecision => ({ state, transition, notify: null });

  if (health === 'PASSING') {
    // Recovery is told at once, and only to those who were told of the trouble.
    if (prev.alerted === 'FAILURE') return told('ALERT_RECOVERY', 'NONE');
    if (prev.alerted === 'DEGRADED') return told('ALERT_DEGRADED_RECOVERY', 'NONE');
    return quiet({ ...s, reminders: 0 });
  }
  if (health === 'FAILING') {
    if (prev.alerted === 'FAILURE') return quiet();
    // Escalation from a degraded state someone was told of: at once.
    if (prev.alerted === 'DEGRADED') return told('ALERT_DEGRADED_FAILURE', 'FAILURE');
    return thresholdReached(s, settings, now)
      ? told(prev.health === 'DEGRADED' ? 'ALERT_DEGRADED_FAILURE' : 'ALERT_FAILURE', 'FAILURE')
      : quiet();
  }
  // DEGRADED
  if (prev.alerted === 'DEGRADED') return quiet();
  // De-escalation from a failure someone was told of: at once.
  if (prev.alerted === 'FAILURE') return told('ALERT_FAILURE_DEGRADED', 'DEGRADED');
  return thresholdReached(s, settings, now) ? told('ALERT_DEGRADED', 'DEGRADED') : quiet();
}

/**
 * A reminder due at `now`, if any: the failure was told, it still fails, fewer than `amount`
 * reminders went out, and `interval` minutes passed since the last notification.
 */
export function dueReminder(s: AlertState, settings: AlertSettings, now: number): { state: AlertState; sequence: number } | null {
  const amount = settings.reminders?.amount ?? 0;
  const interval = (settings.reminders?.interval ?? 5) * 60_000;
  if (s.alerted !== 'FAILURE' || s.health !== 'FAILING' || s.reminders >= amount || s.notifiedAt === null) return null;
  if (now - s.notifiedAt < interval) return null;
  return { state: { ...s, reminders: s.reminders + 1, notifiedAt: now }, sequence: s.reminders + 1 };
}

/** The longest warning any channel may ask for (sslExpiryThreshold is 1..30 days). */
export const SSL_WARNING_DAYS_MAX = 30;

/**
 * Whether a run's certificate, `daysRemaining` from expiry, is worth an ALERT_SSL now: within
 * the longest warning a channel may want, and not already told today (one a day at most).
 */
export function sslAlertDue(s: AlertState, daysRemaining: number | null | undefined, now: number): boolean {
  if (daysRemaining === null || daysRemaining === undefined || daysRemaining > SSL_WARNING_DAYS_MAX) return false;
  return s.sslToldOn !== new Date(now).toISOString().slice(0, 10);
}

/** When the next reminder falls due (epoch ms), or null when none will. */
export function nextReminderAt(s: AlertState, settings: AlertSettings): number | null {
  const amount = settings.reminders?.amount ?? 0;
  if (s.alerted !== 'FAILURE' || s.health !== 'FAILING' || s.reminders >= amount || s.notifiedAt === null) return null;
  return s.notifiedAt + (settings.reminders?.interval ?? 5) * 60_000;
}

/**
 * One run's health across its locations. Cross-location failures count as one run; with
 * `parallelRunFailureThreshold` on (runParallel checks in two or more locations), the run fails
 * only when at least that share of its locations failed.
 */
export function runHealth(locations: readonly { hasFailures: boolean; isDegraded: boolean }[], settings: AlertSettings): Health {
  const failed = locations.filter((l) => l.hasFailures).length;
  const p = settings.parallelRunFailureThreshold;
  const failing =
    p?.enabled && locations.length >= 2 ? failed > 0 && (failed / locations.length) * 100 >= (p.percentage ?? 10) : failed > 0;
  if (failing) return 'FAILING';
  return locations.some((l) => l.isDegraded) ? 'DEGRADED' : 'PASSING';
}
