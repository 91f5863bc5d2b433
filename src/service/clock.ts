// Where the service's time-based rules (leases, pick-up windows, due times) read the time and
// set their timers, so tests can move time instead of waiting for it.

export interface Clock {
  now(): number;
  /** Calls fn once the clock has reached now() + ms. */
  setTimeout(fn: () => void, ms: number): ClockTimer;
  clearTimeout(timer: ClockTimer): void;
}

export type ClockTimer = unknown;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};
