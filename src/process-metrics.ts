import client from 'prom-client';

/**
 * Node's own metrics (CPU, memory, GC, event-loop lag) on a registry. The lag histogram samples
 * once a second: at prom-client's default (every 10 ms) its timer woke an idle process 100 times
 * a second, which was most of what an idle agent or service spent (5-10 ms of CPU a second).
 */
export function collectProcessMetrics(registry: client.Registry, prefix: string): void {
  client.collectDefaultMetrics({ register: registry, prefix, eventLoopMonitoringPrecision: 1000 });
}
