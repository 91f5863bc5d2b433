import { describe, it, expect } from 'vitest';
import { periodMs, phaseMs, nextDue, lastDue, maxOffset, offsetProblem, locationsForRun } from '../../src/domain/schedule.js';

describe('frequencyOffset rules', () => {
  it('frequency 0 takes only 10, 20 or 30', () => {
    for (const ok of [10, 20, 30]) expect(offsetProblem(0, ok)).toBeNull();
    for (const bad of [1, 5, 15, 31, 60]) expect(offsetProblem(0, bad)).toMatch(/10, 20 or 30/);
  });
  it('frequency 1..60 takes 1..floor(frequency*10)', () => {
    expect(maxOffset(1)).toBe(10);
    expect(maxOffset(60)).toBe(600);
    expect(offsetProblem(5, 50)).toBeNull();
    expect(offsetProblem(5, 51)).toMatch(/between 1 and 50/);
    expect(offsetProblem(60, 600)).toBeNull();
  });
  it('frequency above 60 takes 1..ceil(frequency/60)', () => {
    expect(maxOffset(120)).toBe(2);
    expect(maxOffset(1440)).toBe(24);
    expect(offsetProblem(1440, 24)).toBeNull();
    expect(offsetProblem(1440, 25)).toMatch(/between 1 and 24/);
    expect(offsetProblem(180, 4)).toMatch(/ceil\(frequency \/ 60\)/);
  });
  it('refuses offsets below 1 and fractions for any frequency', () => {
    expect(offsetProblem(10, 0)).toMatch(/at least 1/);
    expect(offsetProblem(10, 1.5)).toMatch(/integer/);
  });
});

describe('due times', () => {
  it('sub-minute checks run every offset seconds', () => {
    const s = { frequency: 0, frequencyOffset: 20 };
    expect(periodMs(s)).toBe(20_000);
    const phase = phaseMs('abc', s);
    const a = nextDue(1_000_000, 20_000, phase);
    expect(nextDue(a, 20_000, phase) - a).toBe(20_000);
  });
  it('offset k places runs (k-1)*6 s into each period up to an hour', () => {
    const s = { frequency: 10, frequencyOffset: 11 };
    expect(phaseMs('any', s)).toBe(60_000);
    const due = nextDue(0, periodMs(s), phaseMs('any', s));
    expect(due % 600_000).toBe(60_000);
  });
  it('offset k places runs k-1 hours into longer periods', () => {
    expect(phaseMs('x', { frequency: 1440, frequencyOffset: 3 })).toBe(2 * 3_600_000);
  });
  it('without an offset, checks spread by id but stay put across calls', () => {
    const s = { frequency: 1, frequencyOffset: null };
    expect(phaseMs('check-a', s)).toBe(phaseMs('check-a', s));
    const phases = new Set(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((id) => phaseMs(id, s)));
    expect(phases.size).toBeGreaterThan(4);
  });
  it('nextDue is strictly after, lastDue at or before', () => {
    expect(nextDue(100, 10, 0)).toBe(110);
    expect(nextDue(105, 10, 0)).toBe(110);
    expect(lastDue(110, 10, 0)).toBe(110);
    expect(lastDue(119, 10, 3)).toBe(113);
  });
});

describe('location rotation', () => {
  const all = ['us-east-1', 'eu-west-1', 'home'];
  it('runParallel sends every run everywhere', () => {
    expect(locationsForRun(0, 10, 0, all, true)).toEqual(all);
  });
  it('otherwise one location per run, in turn', () => {
    const seen = [0, 10, 20, 30].map((t) => locationsForRun(t, 10, 0, all, false));
    expect(seen).toEqual([['us-east-1'], ['eu-west-1'], ['home'], ['us-east-1']]);
  });
  it('no locations, no runs', () => {
    expect(locationsForRun(0, 10, 0, [], false)).toEqual([]);
  });
});
