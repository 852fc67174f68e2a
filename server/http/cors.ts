import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from 'cors';

type Next = (err?: unknown) => void;

/**
 * CORS for the configured origins (`CORS_ORIGINS`), or null when none is configured. The origin is
 * decided by a function, not by handing the package the list: given a list, it still sends its other
 * `Access-Control-*` headers to an origin it refuses. Every response varies on `Origin`, refused ones
 * too, so a shared cache never serves one origin's answer to another.
 */
export function createCors(origins: readonly string[]): ((req: IncomingMessage, res: ServerResponse, next: Next) => void) | null {
  if (origins.length === 0) return null;
  const allowed = new Set(origins);
  const middleware = cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin) ? origin : false),
    credentials: true,
    exposedHeaders: ['X-Request-ID', 'Retry-After'],
  });
  return (req, res, next) => {
    res.setHeader('Vary', 'Origin');
    middleware(req, res, next);
  };
}
