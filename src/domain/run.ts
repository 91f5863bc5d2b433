// What crosses the wire between service and agent: a job to run, and the result of running it.

import type { AssertionOutcome } from './assertions.js';
import type { GroupScripts } from './check-groups.js';

/** Version of the agent protocol (docs/agent-protocol.md); an agent of another version stops. */
export const PROTOCOL_VERSION = 1;

/**
 * A run's id: `${dueAt}:${checkId}:${location}`, and `:${sessionId}` for a run of a check
 * session, so the run is unique and its session survives wherever the id goes (a restart too).
 * The due time comes first so ids grow with time: the store's indexes of jobs and of results by
 * job id are appended to, where ids led by the check id put every insert at a random place
 * (more than half the bytes the embedded store wrote per result).
 */
export function jobId(checkId: string, dueAt: number, location: string, sessionId?: string): string {
  return sessionId ? `${dueAt}:${checkId}:${location}:${sessionId}` : `${dueAt}:${checkId}:${location}`;
}

/** The check session a run belongs to, read off its id. */
export function sessionOfJob(id: string): string | undefined {
  return id.split(':')[3];
}

export interface Job<R = Record<string, unknown>> {
  /** `${dueAt}:${checkId}:${location}`: one due run in one location, so re-dispatch and delivery are idempotent. */
  id: string;
  checkId: string;
  checkType: string;
  location: string;
  dueAt: number;
  timeoutMs: number;
  /** The check's settings as saved (request, response-time limits, shouldFail). */
  check: JobCheck<R>;
  runtimeId?: string | null;
  /** Set for on-demand runs: the check session the result belongs to. */
  sessionId?: string;
  /** Set for a retry: the sequence of attempts it continues. */
  sequence?: RunSequence;
  /**
   * Set for a run in several locations at once (runParallel): the run's due time and how many
   * locations it has, whose results are judged together as one run.
   */
  parallel?: { at: number; of: number };
  /** Variables for {{KEY}} placeholders, narrowest scope last; filled in when the job is leased. */
  variables?: Variable[];
  /** The private location's proxy for API checks; may carry credentials, so never logged. */
  proxyUrl?: string | null;
  /** Setup and teardown code (snippet, then the check's own), filled in when the job is leased. */
  setupScript?: string | null;
  tearDownScript?: string | null;
}

/** A run's attempts: the first one's start, and how many retries came before this one. */
export interface RunSequence {
  id: string;
  /** 1 for the first retry. */
  attempt: number;
  startedAt: number;
}

/** R: the check type's request, as its declaration's schema types it. */
export interface JobCheck<R = Record<string, unknown>> {
  name: string;
  request: R;
  degradedResponseTime: number | null;
  maxResponseTime: number | null;
  shouldFail: boolean;
  /** The check's own variables (its group's first); they win over the account's. */
  environmentVariables?: Variable[];
  setupSnippetId?: number | null;
  tearDownSnippetId?: number | null;
  localSetupScript?: string | null;
  localTearDownScript?: string | null;
  /** API checks in a group with scripts: its setup runs before the check's, its teardown after. */
  groupScripts?: GroupScripts;
  /** Browser, multi-step and Playwright checks: the code to run and how. */
  code?: CheckCode;
}

export interface CheckCode {
  script?: string | null;
  /** PLAYWRIGHT: the suite's files; BROWSER and MULTI_STEP: files the script imports. */
  dependencies?: { path: string; content: string }[] | null;
  playwrightConfigPath?: string | null;
  pwProjects?: string[] | null;
  pwTags?: string[] | null;
  /** Playwright's screenshot, trace and video settings for the run. */
  artifacts?: { screenshot?: string; trace?: string; video?: string } | null;
}

export interface Variable {
  key: string;
  value: string;
  secret?: boolean;
}

/** What a runner reports: the probe's own findings, before response-time limits and shouldFail apply. */
export interface ProbeOutcome {
  responseTime: number;
  /** The probe failed outright (could not connect, assertion failed): the message says why. */
  error: string | null;
  /** The check could not be run at all (no browser, runtime missing): not the target's fault. */
  hasErrors?: boolean;
  assertions: AssertionOutcome[];
  /** Type-specific detail stored with the result (for TCP: tcpCheckResult). */
  detail: Record<string, unknown>;
}

export interface RunResult {
  jobId: string;
  checkId: string;
  location: string;
  dueAt: number;
  startedAt: number;
  stoppedAt: number;
  responseTime: number;
  hasFailures: boolean;
  hasErrors: boolean;
  isDegraded: boolean;
  overMaxResponseTime: boolean;
  error: string | null;
  detail: Record<string, unknown>;
}

/**
 * The verdict on a probe: response-time limits first, then shouldFail inverts failure.
 * A probe that could not run at all (hasErrors) is never turned into a pass.
 */
export function judge(
  check: JobCheck,
  probe: ProbeOutcome,
): Pick<RunResult, 'hasFailures' | 'isDegraded' | 'overMaxResponseTime' | 'error'> {
  const over = check.maxResponseTime !== null && probe.responseTime >= check.maxResponseTime;
  const degraded = !over && check.degradedResponseTime !== null && probe.responseTime >= check.degradedResponseTime;
  let failed = probe.error !== null || over;
  let error =
    probe.error ?? (over ? `response time ${Math.round(probe.responseTime)} ms reached maxResponseTime ${check.maxResponseTime} ms` : null);
  if (check.shouldFail) {
    failed = !failed;
    error = failed ? 'the check was expected to fail (shouldFail) but passed' : null;
  }
  return { hasFailures: failed, isDegraded: degraded, overMaxResponseTime: over, error };
}
