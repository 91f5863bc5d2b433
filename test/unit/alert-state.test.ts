// The alert state machine, transition by transition, with the clock passed in.

import { describe, it, expect } from 'vitest';
import {
  INITIAL_ALERT_STATE,
  onRun,
  sslAlertDue,
  dueReminder,
  nextReminderAt,
  runHealth,
  type AlertSettings,
  type AlertState,
  type Health,
} from '../../src/domain/alert-state.js';
import { channelWants } from '../../src/domain/alert-event.js';

const MIN = 60_000;

/** Feeds runs one minute apart; returns what each notified (null: nothing). */
function play(healths: Health[], settings: AlertSettings = {}, start: AlertState = INITIAL_ALERT_STATE) {
  let state = start;
  return healths.map((h, i) => {
    const d = onRun(state, h, settings, i * MIN);
    state = d.state;
    return d.notify;
  });
}

describe('alert state: run-based escalation', () => {
  it('tells of a failure on the first failed run by default, once, and of the recovery', () => {
    expect(play(['PASSING', 'FAILING', 'FAILING', 'PASSING', 'PASSING'])).toEqual([null, 'ALERT_FAILURE', null, 'ALERT_RECOVERY', null]);
  });
  it('waits for N failed runs in a row; a success in between starts the count again', () => {
    const s = { runBasedEscalation: { failedRunThreshold: 3 } };
    expect(play(['FAILING', 'FAILING', 'PASSING', 'FAILING', 'FAILING', 'FAILING', 'FAILING'], s)).toEqual([
      null,
      null,
      null,
      null,
      null,
      'ALERT_FAILURE',
      null,
    ]);
  });
  it('sends no recovery for a failure nobody was told of', () => {
    expect(play(['FAILING', 'PASSING'], { runBasedEscalation: { failedRunThreshold: 2 } })).toEqual([null, null]);
  });
  it('records each run’s transition whatever is sent', () => {
    const d1 = onRun(INITIAL_ALERT_STATE, 'FAILING', { runBasedEscalation: { failedRunThreshold: 2 } }, 0);
    const d2 = onRun(d1.state, 'FAILING', { runBasedEscalation: { failedRunThreshold: 2 } }, MIN);
    expect([d1.transition, d1.notify, d2.transition, d2.notify]).toEqual(['ALERT_FAILURE', null, 'ALERT_FAILURE_REMAIN', 'ALERT_FAILURE']);
  });
});

describe('alert state: degraded', () => {
  it('tells of degraded, escalates to failure at once, de-escalates at once, recovers', () => {
    const s = { runBasedEscalation: { failedRunThreshold: 2 } };
    expect(play(['DEGRADED', 'DEGRADED', 'FAILING', 'DEGRADED', 'PASSING'], s)).toEqual([
      null,
      'ALERT_DEGRADED',
      'ALERT_DEGRADED_FAILURE',
      'ALERT_FAILURE_DEGRADED',
      'ALERT_DEGRADED_RECOVERY',
    ]);
  });
  it('counts a failure after an untold degraded state against the threshold', () => {
    const s = { runBasedEscalation: { failedRunThreshold: 2 } };
    expect(play(['DEGRADED', 'FAILING', 'FAILING'], s)).toEqual([null, null, 'ALERT_FAILURE']);
  });
});

describe('alert state: time-based escalation', () => {
  it('tells once the check has failed for the minutes, however many runs that took', () => {
    const s: AlertSettings = { escalationType: 'TIME_BASED', timeBasedEscalation: { minutesFailingThreshold: 5 } };
    let state = INITIAL_ALERT_STATE;
    const told: (string | null)[] = [];
    for (const at of [0, 2, 4, 5, 6]) {
      const d = onRun(state, 'FAILING', s, at * MIN);
      state = d.state;
      told.push(d.notify);
    }
    expect(told).toEqual([null, null, null, 'ALERT_FAILURE', null]);
  });
});

describe('reminders', () => {
  const s: AlertSettings = { reminders: { amount: 2, interval: 10 } };
  it('repeat a failure alert every interval, at most amount times, and stop at recovery', () => {
    let state = onRun(INITIAL_ALERT_STATE, 'FAILING', s, 0).state;
    expect(nextReminderAt(state, s)).toBe(10 * MIN);
    expect(dueReminder(state, s, 9 * MIN)).toBeNull();
    const r1 = dueReminder(state, s, 10 * MIN)!;
    expect(r1.sequence).toBe(1);
    state = r1.state;
    const r2 = dueReminder(state, s, 20 * MIN)!;
    expect(r2.sequence).toBe(2);
    state = r2.state;
    expect(dueReminder(state, s, 30 * MIN)).toBeNull();
    expect(nextReminderAt(state, s)).toBeNull();
  });
  it('are cancelled by recovery', () => {
    const failing = onRun(INITIAL_ALERT_STATE, 'FAILING', s, 0).state;
    const recovered = onRun(failing, 'PASSING', s, MIN).state;
    expect(dueReminder(recovered, s, 60 * MIN)).toBeNull();
  });
  it('are none by default', () => {
    const failing = onRun(INITIAL_ALERT_STATE, 'FAILING', {}, 0).state;
    expect(dueReminder(failing, {}, 60 * MIN)).toBeNull();
  });
});

describe('a run across locations', () => {
  const loc = (hasFailures: boolean, isDegraded = false) => ({ hasFailures, isDegraded });
  it('fails when any location failed, by default', () => {
    expect(runHealth([loc(false), loc(true)], {})).toBe('FAILING');
    expect(runHealth([loc(false, true), loc(false)], {})).toBe('DEGRADED');
    expect(runHealth([loc(false), loc(false)], {})).toBe('PASSING');
  });
  it('with a parallel-run threshold, fails only when that share of locations failed', () => {
    const s = { parallelRunFailureThreshold: { enabled: true, percentage: 50 } };
    expect(runHealth([loc(true), loc(false), loc(false)], s)).toBe('PASSING');
    expect(runHealth([loc(true), loc(true), loc(false)], s)).toBe('FAILING');
    // One location: the threshold does not apply.
    expect(runHealth([loc(true)], s)).toBe('FAILING');
  });
});

describe('certificate expiry', () => {
  const DAY = 86_400_000;
  it('is worth telling within 30 days of expiry, once a day', () => {
    const now = Date.UTC(2026, 10, 23, 12);
    expect(sslAlertDue(INITIAL_ALERT_STATE, 31, now)).toBe(false);
    expect(sslAlertDue(INITIAL_ALERT_STATE, null, now)).toBe(false);
    expect(sslAlertDue(INITIAL_ALERT_STATE, 30, now)).toBe(true);
    const told = { ...INITIAL_ALERT_STATE, sslToldOn: '2026-11-23' };
    expect(sslAlertDue(told, 5, now + 3_600_000)).toBe(false);
    expect(sslAlertDue(told, 4, now + DAY)).toBe(true);
  });
  it('reaches the channels that asked, by their own threshold', () => {
    const ch = { sendFailure: true, sendDegraded: false, sendRecovery: true, sslExpiry: true, sslExpiryThreshold: 14 };
    expect(channelWants(ch, 'ALERT_SSL', 14)).toBe(true);
    expect(channelWants(ch, 'ALERT_SSL', 15)).toBe(false);
    expect(channelWants({ ...ch, sslExpiry: false }, 'ALERT_SSL', 3)).toBe(false);
    expect(channelWants(ch, 'ALERT_DEGRADED')).toBe(false);
    expect(channelWants(ch, 'ALERT_RECOVERY')).toBe(true);
  });
});
