import { describe, it, expect } from 'vitest';
import { incidentDuration } from '../../src/domain/incidents.js';

const m = 60_000;
describe('how long an incident lasted', () => {
  it('runs from the first update to now while open', () => {
    expect(incidentDuration([{ status: 'INVESTIGATING', at: 0 }], 5 * m)).toBe(300);
    expect(incidentDuration([], 5 * m)).toBeNull();
  });
  it('ends at the resolve that closed it, later resolves of a resolved incident not counting', () => {
    const t = [
      { status: 'INVESTIGATING', at: 0 },
      { status: 'MONITORING', at: 2 * m },
      { status: 'RESOLVED', at: 3 * m },
      { status: 'RESOLVED', at: 9 * m },
    ];
    expect(incidentDuration(t, 60 * m)).toBe(180);
  });
  it('reopened, it runs to the last resolve (or to now while open again)', () => {
    const t = [
      { status: 'INVESTIGATING', at: 0 },
      { status: 'RESOLVED', at: 1 * m },
      { status: 'INVESTIGATING', at: 5 * m },
    ];
    expect(incidentDuration(t, 10 * m)).toBe(600);
    expect(incidentDuration([...t, { status: 'RESOLVED', at: 7 * m }], 10 * m)).toBe(420);
  });
});
