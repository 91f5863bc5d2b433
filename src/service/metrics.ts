import client from 'prom-client';
import { collectProcessMetrics } from '../process-metrics.js';
import { RecentQuantiles } from './recent-quantiles.js';

export function serviceMetrics() {
  const registry = new client.Registry();
  collectProcessMetrics(registry, 'outpost_service_');
  return {
    registry,
    runsScheduled: new client.Counter({ name: 'outpost_runs_scheduled_total', help: 'Due runs turned into jobs', registers: [registry] }),
    runsDropped: new client.Counter({
      name: 'outpost_runs_dropped_total',
      help: 'Due runs dropped because no agent picked them up in time, or missed while the service was down',
      labelNames: ['reason'],
      registers: [registry],
    }),
    jobsRedispatched: new client.Counter({
      name: 'outpost_jobs_redispatched_total',
      help: 'Leased jobs handed out again after their lease expired',
      registers: [registry],
    }),
    resultsStored: new client.Counter({ name: 'outpost_results_stored_total', help: 'Check results stored', registers: [registry] }),
    dispatchLatency: new client.Histogram({
      name: 'outpost_dispatch_latency_seconds',
      help: 'How late the agent started a run after its due time (0 when on time or early)',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30],
      registers: [registry],
    }),
    // Exact recent quantiles for the benchmark and for operators; the histogram is for aggregation.
    dispatchLatencyRecent: lastMinute(
      registry,
      'outpost_dispatch_latency_recent_seconds',
      'How late the agent started a run after its due time',
    ),
    resultLatencyRecent: lastMinute(
      registry,
      'outpost_result_latency_recent_seconds',
      "From a run finishing on its agent (the agent's clock) to its result being stored",
    ),
    pendingJobs: new client.Gauge({ name: 'outpost_jobs_pending', help: 'Jobs waiting for an agent', registers: [registry] }),
  };
}
export type ServiceMetrics = ReturnType<typeof serviceMetrics>;

const PERCENTILES = [0.5, 0.9, 0.99];

/** Quantiles of the last minute (p50, p90, p99), for operators and the benchmark. */
function lastMinute(registry: client.Registry, name: string, help: string) {
  const recent = new RecentQuantiles();
  new client.Gauge({
    name,
    help: `${help}, over the last minute`,
    labelNames: ['quantile'],
    registers: [registry],
    collect() {
      const values = recent.quantiles(PERCENTILES);
      PERCENTILES.forEach((q, i) => this.set({ quantile: String(q) }, values[i]));
    },
  });
  return recent;
}
