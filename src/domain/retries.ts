// Retries of a failed run: whether there is another attempt, after how long, and where. Pure.
// A run's attempts form a sequence; every attempt but the last is stored as an ATTEMPT result,
// the last as the FINAL one, which alone counts for alerting, statuses and availability.

import type { RunSequence } from './run.js';

export const RETRY_TYPES = ['FIXED', 'LINEAR', 'EXPONENTIAL', 'SINGLE_RETRY'] as const;
export type RetryType = (typeof RETRY_TYPES)[number];

export interface RetryStrategy {
  type: RetryType;
  baseBackoffSeconds?: number;
  maxRetries?: number;
  maxDurationSeconds?: number;
  sameRegion?: boolean;
  onlyOn?: string[] | null;
}

export const RETRY_DEFAULTS = { baseBackoffSeconds: 60, maxRetries: 2, maxDurationSeconds: 600, sameRegion: true } as const;

/**
 * The strategy a check runs with: its own, or with none and the (deprecated) `doubleCheck` on,
 * one retry straight away from another of its locations.
 */
export function effectiveRetry(retryStrategy: RetryStrategy | null | undefined, doubleCheck: boolean | undefined): RetryStrategy | null {
  if (retryStrategy) return retryStrategy;
  if (doubleCheck) return { type: 'SINGLE_RETRY', baseBackoffSeconds: 0, maxDurationSeconds: 600, sameRegion: false };
  return null;
}

/** Seconds before retry `n` (1 for the first): b, b, b / b·n / bⁿ / b once. */
export function backoffSeconds(s: RetryStrategy, n: number): number {
  const b = s.baseBackoffSeconds ?? RETRY_DEFAULTS.baseBackoffSeconds;
  switch (s.type) {
    case 'LINEAR':
      return b * n;
    case 'EXPONENTIAL':
      return b ** n;
    default:
      return b;
  }
}

export interface FailedAttempt {
  /** Retries made so far in this sequence (0 after the first attempt). */
  retries: number;
  /** Milliseconds from the sequence's first start to this attempt's end. */
  elapsedMs: number;
  /** The attempt failed without an answer from the target (connection refused, DNS, timeout). */
  networkError: boolean;
}

/** The delay before the next attempt, or null when the sequence ends here. */
export function nextRetryDelayMs(s: RetryStrategy | null, a: FailedAttempt): number | null {
  if (!s) return null;
  const max = s.type === 'SINGLE_RETRY' ? 1 : (s.maxRetries ?? RETRY_DEFAULTS.maxRetries);
  if (a.retries >= max) return null;
  if (s.onlyOn?.includes('NETWORK_ERROR') && !a.networkError) return null;
  const delayMs = backoffSeconds(s, a.retries + 1) * 1000;
  if (a.elapsedMs + delayMs > (s.maxDurationSeconds ?? RETRY_DEFAULTS.maxDurationSeconds) * 1000) return null;
  return delayMs;
}

/** Where retry `n` runs: the same location, or (sameRegion false) the next of the check's others. */
export function retryLocation(s: RetryStrategy, locations: readonly string[], failedIn: string, n: number): string {
  if (s.sameRegion !== false) return failedIn;
  const others = locations.filter((l) => l !== failedIn);
  return others.length ? others[(n - 1) % others.length]! : failedIn;
}

/** Failures that mean no answer came: what `onlyOn: ["NETWORK_ERROR"]` retries. */
const NETWORK = /ECONNRESET|ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EPIPE|timed out|Timed out|DNS lookup/;
export function isNetworkError(error: string | null, hadResponse: boolean): boolean {
  return !hadResponse && error !== null && NETWORK.test(error);
}

/** What a finished run is: the FINAL result of its sequence, or an ATTEMPT followed by a retry. */
export type AttemptVerdict =
  | { resultType: 'FINAL'; sequenceId: string | null; attempts: number }
  | { resultType: 'ATTEMPT'; sequenceId: string; attempts: number; retry: { delayMs: number; location: string; sequence: RunSequence } };

/**
 * Judges a finished run of a scheduled check: a failure with another attempt left is an ATTEMPT
 * and names its retry (when, where, its place in the sequence); anything else ends the sequence.
 */
export function judgeAttempt(
  s: RetryStrategy | null,
  run: { sequence?: RunSequence; location: string; startedAt: number; stoppedAt: number; failed: boolean; networkError: boolean },
  locations: readonly string[],
  newId: () => string,
): AttemptVerdict {
  const retries = run.sequence?.attempt ?? 0;
  const final: AttemptVerdict = { resultType: 'FINAL', sequenceId: run.sequence?.id ?? null, attempts: retries };
  if (!run.failed || !s) return final;
  const startedAt = run.sequence?.startedAt ?? run.startedAt;
  const delayMs = nextRetryDelayMs(s, { retries, elapsedMs: run.stoppedAt - startedAt, networkError: run.networkError });
  if (delayMs === null) return final;
  const sequence = { id: run.sequence?.id ?? newId(), attempt: retries + 1, startedAt };
  return {
    resultType: 'ATTEMPT',
    sequenceId: sequence.id,
    attempts: retries,
    retry: { delayMs, location: retryLocation(s, locations, run.location, sequence.attempt), sequence },
  };
}
