import { performance } from 'node:perf_hooks';
import client from 'prom-client';

/**
 * Node's own metrics (CPU, memory, GC, event-loop lag) on a registry. The lag histogram needs a
 * timer of its own, and on small hosts every wakeup costs more than the work of a few checks:
 * it samples every 10 s (prom-client's default, 10 ms, woke an idle process 100 times a second).
 * Event-loop utilisation, read from the loop's own counters at each scrape, needs no timer and
 * shows a busy loop between samples.
 */
export function collectProcessMetrics(registry: client.Registry, prefix: string): void {
  client.collectDefaultMetrics({ register: registry, prefix, eventLoopMonitoringPrecision: 10_000 });
  let last = performance.eventLoopUtilization();
  new client.Gauge({
    name: `${prefix}nodejs_eventloop_utilization_ratio`,
    help: 'Share of the time since the previous scrape the event loop spent running code (0-1)',
    registers: [registry],
    collect() {
      const now = performance.eventLoopUtilization();
      this.set(performance.eventLoopUtilization(now, last).utilization);
      last = now;
    },
  });
}
