// A run's result as the job queue hands it to the store, for tests of the store itself.

import type { Delivered } from '../../src/service/store/results.js';

export function delivered(
  accountId: string,
  checkId: string,
  jobId: string,
  stoppedAt: number,
  o: { failed?: boolean; degraded?: boolean; attempt?: boolean; ms?: number } = {},
): Delivered {
  const location = 'eu-west-1';
  const dueAt = stoppedAt - 10;
  return {
    accountId,
    resultType: o.attempt ? 'ATTEMPT' : 'FINAL',
    job: {
      id: jobId,
      checkId,
      checkType: 'TCP',
      location,
      dueAt,
      timeoutMs: 1000,
      check: { name: checkId, request: {}, degradedResponseTime: null, maxResponseTime: null, shouldFail: false },
    },
    result: {
      jobId,
      checkId,
      location,
      dueAt,
      startedAt: dueAt,
      stoppedAt,
      responseTime: o.ms ?? 10,
      hasFailures: !!o.failed,
      hasErrors: false,
      isDegraded: !!o.degraded,
      overMaxResponseTime: false,
      error: o.failed ? 'refused' : null,
      detail: {},
    },
  };
}
