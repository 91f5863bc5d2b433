// The lease answer is written by hand from cached check JSON; an agent must read from it
// exactly the jobs the queue handed out.

import { describe, it, expect } from 'vitest';
import { jobJson, leaseAnswerJson } from '../../src/service/job-json.js';
import type { Job } from '../../src/domain/run.js';

const check = {
  name: 'api "quoted" \u2028 name',
  request: {
    url: 'http://127.0.0.1:8080/x?a=1&b=ä',
    method: 'GET',
    assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
  },
  degradedResponseTime: 3000,
  maxResponseTime: 5000,
  shouldFail: false,
};
const job = (dueAt: number, extra: Partial<Job> = {}): Job => ({
  id: `${dueAt}:c1:rack-7`,
  checkId: 'c1',
  checkType: 'API',
  location: 'rack-7',
  dueAt,
  timeoutMs: 5000,
  check,
  runtimeId: undefined,
  ...extra,
});

describe('lease answer JSON', () => {
  it('reads back as the jobs given, for every job that shares one check', () => {
    const jobs = [job(1000), job(2000, { sessionId: 's1', parallel: { at: 2000, of: 2 } } as Partial<Job>), job(3000)];
    const parsed = JSON.parse(leaseAnswerJson(jobs, undefined, 42));
    expect(parsed).toEqual({ jobs: JSON.parse(JSON.stringify(jobs)), now: 42 });
    expect(parsed.jobs.map((j: Job) => j.check.name)).toEqual([check.name, check.name, check.name]);
  });

  it('carries accepted results when there are some, and an empty list of jobs', () => {
    expect(JSON.parse(leaseAnswerJson([], ['1000:c1:rack-7'], 7))).toEqual({ jobs: [], accepted: ['1000:c1:rack-7'], now: 7 });
  });

  it('keeps fields added to a job after it was made (a proxy, variables)', () => {
    const j = { ...job(1000), proxyUrl: 'http://proxy.internal:3128', variables: [{ key: 'K', value: 'v' }] } as Job;
    expect(JSON.parse(jobJson(j))).toEqual(JSON.parse(JSON.stringify(j)));
  });
});
