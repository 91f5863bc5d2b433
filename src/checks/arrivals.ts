// When a socket's first bytes arrived, from the addon's watcher thread (src/native/arrivals.c), on
// performance.now()'s scale. The event loop may get to a socket milliseconds after its bytes
// came in; the watcher thread notes them as they come (when it gets a core: the reading is
// never early, and may be late, so callers take the earlier of it and their own). Without the addon: null, and the caller
// keeps its own event-loop readings.

import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import { nativeAddon } from './native.js';

export interface Arrivals {
  /** When the first bytes arrived (performance.now() ms), or null when none have yet. */
  first(): number | null;
  /** Stops watching; first() keeps answering with what was seen until then. */
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
  let seen: number | null = null;
  return {
    first() {
      const at = seen ?? watcher.first(slot);
      return at ? at + offset! : null;
    },
    stop() {
      if (seen !== null) return;
      seen = watcher.first(slot);
      // Closing a socket takes it out of the watcher's set; its number may be another's by now.
      watcher.unwatch(slot, fdOf(sock) === fd ? fd : -1);
    },
  };
}
