// The lease answer as JSON. The scheduler gives every run of a check the same `check` object,
// so that part of a job, most of its bytes, is serialised once per check and its string reused:
// in a backlog drain, serialising lease answers was ~3 % of the service's CPU.

import type { Job } from '../domain/run.js';

const checkJson = new WeakMap<object, string>();

export function jobJson(job: Job): string {
  let check = checkJson.get(job.check);
  if (check === undefined) {
    check = JSON.stringify(job.check);
    checkJson.set(job.check, check);
  }
  const { check: _check, ...rest } = job;
  return `${JSON.stringify(rest).slice(0, -1)},"check":${check}}`;
}

/** The lease answer: `{ jobs, accepted?, now }`. */
export function leaseAnswerJson(jobs: Job[], accepted: unknown, now: number): string {
  const tail = accepted === undefined ? '' : `,"accepted":${JSON.stringify(accepted)}`;
  return `{"jobs":[${jobs.map(jobJson).join(',')}]${tail},"now":${now}}`;
}
