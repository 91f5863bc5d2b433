// Status-page incidents: how long one lasted, from its timeline. Pure.

export const SEVERITIES = ['CRITICAL', 'MAJOR', 'MEDIUM', 'MINOR'] as const;
export const INCIDENT_STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'] as const;

export interface TimelineEntry {
  status: string;
  at: number;
}

/**
 * Seconds from the first update to the RESOLVED update that closed the incident (the last one,
 * if it was reopened), or to now while it is still open; null without updates.
 */
export function incidentDuration(timeline: readonly TimelineEntry[], now: number): number | null {
  if (!timeline.length) return null;
  const sorted = [...timeline].sort((a, b) => a.at - b.at);
  const last = sorted[sorted.length - 1];
  let end = now;
  if (last.status === 'RESOLVED') {
    // The resolve that closed it: the first RESOLVED after the last update that was not one.
    let i = sorted.length - 1;
    while (i > 0 && sorted[i - 1].status === 'RESOLVED') i--;
    end = sorted[i].at;
  }
  return Math.max(0, Math.round((end - sorted[0].at) / 1000));
}
