// The one way runners stop at their deadline: a promise settled once, by the exchange or by the
// deadline (or the agent's stop signal), with its resources released either way.

export function timeoutError(): Error {
  return Object.assign(new Error('timed out'), { name: 'TimeoutError' });
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
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      release();
      if (err) reject(err);
      else resolve(value as T);
    };
    const onAbort = () => settle(timeoutError());
    const timer = setTimeout(onAbort, Math.max(0, deadline - Date.now()));
    signal.addEventListener('abort', onAbort, { once: true });
    start(settle);
  });
}
