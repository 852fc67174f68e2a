import type { IncomingMessage, ServerResponse } from 'node:http';
import cluster from 'node:cluster';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { IndexOutboxCounts } from '../ports/index-outbox.js';
import type { RouteLabeler } from './route-labels.js';

/** Store-wide figures read at each scrape. */
export interface MetricSources {
  /** The search index outbox (server profile); absent where index rows commit with the memory. */
  indexOutbox?: () => Promise<IndexOutboxCounts | null>;
}

/**
 * Prometheus metrics for one app instance (its own registry, so tests can start many apps). Labels
 * come from `labels`: route templates and known methods only, so clients cannot add series.
 */
export function createMetrics(labels: RouteLabeler, sources: MetricSources = {}) {
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

  const outboxCounts = sources.indexOutbox;
  if (outboxCounts) {
    new Gauge({
      name: 'index_outbox_entries',
      help: 'Search index outbox entries: pending (waiting for the index) and poisoned (set aside after repeated failures)',
      labelNames: ['state'] as const,
      registers: [registry],
      async collect() {
        // A store that cannot answer leaves the last values (and never fails the scrape).
        const c = await outboxCounts().catch(() => null);
        if (!c) return;
        this.set({ state: 'pending' }, c.pending);
        this.set({ state: 'poisoned' }, c.poisoned);
      },
    });
  }

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
