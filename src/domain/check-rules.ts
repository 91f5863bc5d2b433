// Rules that span fields (a JSON schema checks each field on its own). Pure.

import { offsetProblem } from './schedule.js';

export interface RuleViolation {
  field: string;
  message: string;
  rule: string;
}

interface Timed {
  frequency: number;
  frequencyOffset: number | null;
  degradedResponseTime: number | null;
  maxResponseTime: number | null;
}

export function checkRuleViolation(c: Timed): RuleViolation | null {
  const offset = offsetProblem(c.frequency, c.frequencyOffset);
  if (offset) return { field: 'frequencyOffset', message: offset, rule: 'frequencyOffset' };
  if (c.degradedResponseTime !== null && c.maxResponseTime !== null && c.degradedResponseTime > c.maxResponseTime) {
    return {
      field: 'degradedResponseTime',
      message: `degradedResponseTime (${c.degradedResponseTime}) must not be above maxResponseTime (${c.maxResponseTime})`,
      rule: 'degradedResponseTime <= maxResponseTime',
    };
  }
  return null;
}

/** Frequency 0 without an offset runs every 10 s (the smallest sub-minute interval). */
export function defaultOffset(frequency: number, offset: number | null | undefined): number | null {
  if (offset !== undefined && offset !== null) return offset;
  return frequency === 0 ? 10 : null;
}
