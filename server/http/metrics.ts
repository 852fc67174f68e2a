import type { IncomingMessage, ServerResponse } from 'node:http';
import cluster from 'node:cluster';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { RouteLabeler } from './route-labels.js';

/**
 * Prometheus metrics for one app instance (its own registry, so tests can start many apps). Labels
 * come from `labels`: route templates and known methods only, so clients cannot add series.
 */
export function createMetrics(labels: RouteLabeler) {
  const registry = new Registry();
  // Under `serve --processes N` each scrape reaches one process: its pid keeps the series apart.
  if (cluster.isWorker) registry.setDefaultLabels({ pid: String(process.pid) });
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'http_errors_total',
    help: 'HTTP responses with status >= 400 by code',
    labelNames: ['status'] as const,
    registers: [registry],
  });

  /** Starts timing an exchange; the observation is recorded when the response finishes. */
  function observe(req: IncomingMessage, res: ServerResponse): void {
    const end = duration.startTimer();
    res.once('finish', () => {
      const status = String(res.statusCode);
      end({ method: labels.method(req.method), route: labels.route(req.method, req.url), status });
      if (res.statusCode >= 400) errors.inc({ status });
    });
  }

  return { registry, observe };
}
