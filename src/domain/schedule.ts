// Schedule math: when a check is due and from where. Pure; times are epoch milliseconds.
//
// frequencyOffset semantics (also in README):
//  - frequency 0: the offset (10, 20 or 30) is the interval in seconds.
//  - frequency 1..60 minutes: the period is split into frequency*10 slots of 6 s; offset k
//    (1..frequency*10) places the run (k-1)*6 s into each period.
//  - frequency above 60: the period is split into hour-long slots; offset k (1..ceil(frequency/60))
//    places the run k-1 hours into each period.
//  - no offset (and frequency 0, whose offset is its interval): the phase is derived from the
//    check id, so checks created together do not all fire in the same instant. Periods are aligned to the Unix epoch, so the phase is stable
//    across restarts.

import { SUB_MINUTE_OFFSETS } from './limits.js';

export interface Schedule {
  frequency: number;
  frequencyOffset: number | null;
}

const SLOT_MS_UP_TO_HOUR = 6_000;
const SLOT_MS_ABOVE_HOUR = 3_600_000;

export function periodMs(s: Schedule): number {
  if (s.frequency === 0) return (s.frequencyOffset ?? SUB_MINUTE_OFFSETS[0]) * 1000;
  return s.frequency * 60_000;
}

/** Largest frequencyOffset allowed for a frequency; null when the frequency takes the sub-minute set. */
export function maxOffset(frequency: number): number | null {
  if (frequency === 0) return null;
  if (frequency <= 60) return Math.floor(frequency * 10);
  return Math.ceil(frequency / 60);
}

/** A rule violation as a sentence, or null when the offset fits the frequency. */
export function offsetProblem(frequency: number, offset: number | null | undefined): string | null {
  if (offset === null || offset === undefined) return null;
  if (!Number.isInteger(offset) || offset < 1) return 'frequencyOffset must be an integer of at least 1';
  if (frequency === 0) {
    return (SUB_MINUTE_OFFSETS as readonly number[]).includes(offset) ? null : 'frequencyOffset must be 10, 20 or 30 when frequency is 0';
  }
  const max = maxOffset(frequency)!;
  if (offset > max) {
    const rule = frequency <= 60 ? 'floor(frequency * 10)' : 'ceil(frequency / 60)';
    return `frequencyOffset must be between 1 and ${max} (${rule}) when frequency is ${frequency}`;
  }
  return null;
}

/** FNV-1a: a stable, cheap spread of ids over a period. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function phaseMs(checkId: string, s: Schedule): number {
  const period = periodMs(s);
  if (s.frequency !== 0 && s.frequencyOffset) {
    const slot = s.frequency <= 60 ? SLOT_MS_UP_TO_HOUR : SLOT_MS_ABOVE_HOUR;
    return ((s.frequencyOffset - 1) * slot) % period;
  }
  // Millisecond spread: many checks of one frequency then come due as a steady stream rather
  // than all at once on a second boundary, where they would queue behind the agents' slots.
  return hash32(checkId) % period;
}

/** The first due time strictly after `after`. */
export function nextDue(after: number, period: number, phase: number): number {
  const k = Math.floor((after - phase) / period) + 1;
  return k * period + phase;
}

/** The latest due time at or before `at`. */
export function lastDue(at: number, period: number, phase: number): number {
  return Math.floor((at - phase) / period) * period + phase;
}

/**
 * Where one due run goes: every location at once when runParallel, otherwise one location per
 * run, rotating through the list by the run's index so the rotation survives restarts.
 */
export function locationsForRun(due: number, period: number, phase: number, all: string[], runParallel: boolean): string[] {
  if (all.length === 0) return [];
  if (runParallel) return all;
  const index = Math.floor((due - phase) / period);
  return [all[((index % all.length) + all.length) % all.length]];
}
