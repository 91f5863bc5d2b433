import client from 'prom-client';
import { collectProcessMetrics } from '../process-metrics.js';

export function agentMetrics() {
  const registry = new client.Registry();
  collectProcessMetrics(registry, 'outpost_agent_');
  return {
    registry,
    jobs: new client.Counter({
      name: 'outpost_agent_jobs_total',
      help: 'Jobs run, by check type and outcome',
      labelNames: ['check_type', 'outcome'],
      registers: [registry],
    }),
    duration: new client.Histogram({
      name: 'outpost_agent_job_duration_seconds',
      help: 'Time to run a job, by check type',
      labelNames: ['check_type'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 120],
      registers: [registry],
    }),
    queueDepth: new client.Gauge({ name: 'outpost_agent_queue_depth', help: 'Jobs leased and waiting for a slot', registers: [registry] }),
    running: new client.Gauge({ name: 'outpost_agent_jobs_running', help: 'Jobs running now', registers: [registry] }),
    deliveryFailures: new client.Counter({
      name: 'outpost_agent_delivery_failures_total',
      help: 'Result deliveries the service did not take (the results were spooled to disk)',
      registers: [registry],
    }),
    refused: new client.Counter({
      name: 'outpost_agent_results_refused_total',
      help: 'Results the service refused (4xx): set aside in the spool directory, never sent again',
      registers: [registry],
    }),
    spooled: new client.Counter({
      name: 'outpost_agent_results_spooled_total',
      help: 'Results written to the disk spool',
      registers: [registry],
    }),
  };
}
export type AgentMetrics = ReturnType<typeof agentMetrics>;
