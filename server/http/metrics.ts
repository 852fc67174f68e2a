import type { NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** Prometheus metrics for one app instance (its own registry, so tests can start many apps). */
export function createMetrics() {
  const registry = new Registry();
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

  function middleware(req: Request, res: Response, next: NextFunction): void {
    const end = duration.startTimer();
    res.on('finish', () => {
      const status = String(res.statusCode);
      end({ method: req.method, route: routeLabel(req.path), status });
      if (res.statusCode >= 400) errors.inc({ status });
    });
    next();
  }

  return { registry, middleware };
}

/** Ids in paths would make unbounded label sets: collapse UUIDs and numbers. */
function routeLabel(path: string): string {
  if (path.startsWith('/trpc/')) return '/trpc/' + path.slice(6).split(/[,?]/)[0];
  return path
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '{id}')
    .replace(/\/\d+(?=\/|$)/g, '/{n}');
}
