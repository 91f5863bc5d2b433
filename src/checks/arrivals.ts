// When a socket's bytes arrived, as the kernel stamped them, from the addon's watcher thread
// (src/native/arrivals.c), on performance.now()'s scale. The event loop may get to a socket
// milliseconds after its bytes came in; the kernel's stamps do not depend on it. A reading is
// never early: when the thread could not peek a stamp it gives its own wake-up time for the
// first arrival and nothing for the last, so callers take the earlier of it and their own.
// Without the addon: null, and the caller keeps its own event-loop readings.

import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import { nativeAddon } from './native.js';

export interface Arrivals {
  /** When the first bytes arrived (performance.now() ms), or null when none have yet. */
  first(): number | null;
  /**
   * When the connection's `received`-th byte arrived (performance.now() ms), at the latest;
   * null when the watcher did not see it come (the event loop read it first).
   */
  last(received: number): number | null;
  /** Stops watching; first() and last() keep answering with what was seen until then. */
  stop(): void;
}

/** performance.now() minus CLOCK_MONOTONIC: both count from boot, from different origins. */
let offset: number | undefined;

function fdOf(sock: net.Socket): number {
  return (sock as unknown as { _handle?: { fd?: number } | null })._handle?.fd ?? -1;
}

export function socketArrivals(sock: net.Socket): Arrivals | null {
  const watcher = nativeAddon()?.arrivals;
  const fd = fdOf(sock);
  if (!watcher || fd < 0) return null;
  const slot = watcher.watch(fd);
  if (slot < 0) return null;
  offset ??= performance.now() - watcher.now();
  let stopped = false;
  let first = 0;
  let last = 0;
  let lastBytes = 0;
  return {
    first() {
      const at = stopped ? first : watcher.first(slot);
      return at ? at + offset! : null;
    },
    last(received) {
      const at = stopped ? last : watcher.last(slot);
      const bytes = stopped ? lastBytes : watcher.lastBytes(slot);
      return at && bytes >= received ? at + offset! : null;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      first = watcher.first(slot);
      last = watcher.last(slot);
      lastBytes = watcher.lastBytes(slot);
      // Closing a socket takes it out of the watcher's set; its number may be another's by now.
      watcher.unwatch(slot, fdOf(sock) === fd ? fd : -1);
    },
  };
}
