// Status-page incidents: how long one lasted, from its timeline. Pure.

export const SEVERITIES = ['CRITICAL', 'MAJOR', 'MEDIUM', 'MINOR'] as const;
export const INCIDENT_STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'] as const;

export interface TimelineEntry {
  status: string;
  at: number;
}

/**
 * When an incident began (its first update) and the RESOLVED update that closed it (the first of
 * the last run of RESOLVED updates, if it was reopened); resolvedAt null while it is open.
 */
export function incidentSpan(timeline: readonly TimelineEntry[]): { startedAt: number; resolvedAt: number | null } | null {
  if (!timeline.length) return null;
  const sorted = [...timeline].sort((a, b) => a.at - b.at);
  let i = sorted.length - 1;
  if (sorted[i].status !== 'RESOLVED') return { startedAt: sorted[0].at, resolvedAt: null };
  while (i > 0 && sorted[i - 1].status === 'RESOLVED') i--;
  return { startedAt: sorted[0].at, resolvedAt: sorted[i].at };
}

/** Seconds from the incident's start to its resolution, or to now while it is open; null without updates. */
export function incidentDuration(timeline: readonly TimelineEntry[], now: number): number | null {
  const span = incidentSpan(timeline);
  if (!span) return null;
  return Math.max(0, Math.round(((span.resolvedAt ?? now) - span.startedAt) / 1000));
}
