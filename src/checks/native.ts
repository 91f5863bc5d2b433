// The agent's native addon (src/native), loaded once. It is optional: without a compiler at
// install time it is not built, and what uses it falls back (ICMP to the ping program, HTTP
// arrival times to the event loop's 'readable' events).

import { createRequire } from 'node:module';
import type { NativeCtor } from './icmp-socket.js';

export interface ArrivalWatcher {
  /** Starts watching a socket's file descriptor: a slot number, or -1 when it cannot. */
  watch(fd: number): number;
  /** fd while the socket is still open, -1 once it is closed. */
  unwatch(slot: number, fd: number): void;
  /** When the first bytes arrived, ms on CLOCK_MONOTONIC; 0 while none have. */
  first(slot: number): number;
  /** When the newest bytes seen arrived, ms on CLOCK_MONOTONIC; 0 while none were seen. */
  last(slot: number): number;
  /** Bytes the connection had received by last(slot), at least. */
  lastBytes(slot: number): number;
  /** CLOCK_MONOTONIC in ms. */
  now(): number;
}

export interface NativeAddon {
  IcmpSocket: NativeCtor;
  arrivals: ArrivalWatcher;
}

let addon: NativeAddon | null | undefined;

export function nativeAddon(): NativeAddon | null {
  if (addon !== undefined) return addon;
  try {
    addon = createRequire(import.meta.url)('../../src/native/build/Release/outpost_native.node') as NativeAddon;
  } catch {
    addon = null;
  }
  return addon;
}
