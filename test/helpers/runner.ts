// Runner tests call a check runner the way the agent does: a job as the service hands it out,
// a fresh abort signal, and a deadline of the job's timeout.

import { createLogger } from '../../src/log.js';
import type { Job, JobCheck, ProbeOutcome } from '../../src/domain/run.js';
import type { CheckRunner, RunContext } from '../../src/checks/types.js';

export const log = createLogger('test', 'ERROR');

/** A job of one check type; runners read only the request (and code), ids and timeout. */
export function jobOf(
  checkType: string,
  request: Record<string, unknown>,
  o: Partial<Omit<Job, 'check'>> & { check?: Partial<JobCheck> } = {},
): Job {
  const { check, ...rest } = o;
  return {
    id: 'c:1:here',
    checkId: 'c',
    checkType,
    location: 'here',
    dueAt: 1,
    timeoutMs: 3000,
    ...rest,
    check: { name: 'n', request, degradedResponseTime: null, maxResponseTime: null, shouldFail: false, ...check },
  };
}

export function runJob(runner: CheckRunner, job: Job, extra: Partial<RunContext> = {}): Promise<ProbeOutcome> {
  return runner(job, { signal: new AbortController().signal, deadline: Date.now() + job.timeoutMs, log, ...extra });
}
export type { Job };
