// The one way runners stop at their deadline: a promise settled once, by the exchange or by the
// deadline (or the agent's stop signal), with its resources released either way.

import { RunTimeoutError } from './errors.js';

/**
 * Calls `fire` at the deadline, and when the signal aborts (the agent's stop); the returned
 * function disarms both. HTTP, TCP and DNS runs share it.
 */
export function armDeadline(deadline: number, signal: AbortSignal, fire: () => void): () => void {
  const timer = setTimeout(fire, Math.max(0, deadline - Date.now()));
  signal.addEventListener('abort', fire, { once: true });
  return () => {
    clearTimeout(timer);
    signal.removeEventListener('abort', fire);
  };
}

/**
 * Runs `start`, which is given `settle` to call when the exchange ends; `release` frees the
 * exchange's resources (sockets) whichever way it ended.
 */
export function untilDeadline<T>(
  deadline: number,
  signal: AbortSignal,
  release: () => void,
  start: (settle: (err: Error | null, value?: T) => void) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let over = false;
    const settle = (err: Error | null, value?: T) => {
      if (over) return;
      over = true;
      disarm();
      release();
      if (err) reject(err);
      else resolve(value as T);
    };
    const disarm = armDeadline(deadline, signal, () => settle(new RunTimeoutError()));
    start(settle);
  });
}
