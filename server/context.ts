import type { Request, Response } from 'express';
import type { Logger } from './logger.js';
import type { Services } from './container.js';

/**
 * What every procedure sees. Built per request by the express layer (REST and /trpc alike);
 * authentication happens in procedures, not here, so public routes pay nothing for it.
 */
export interface RequestContext {
  requestId: string;
  /** Client address: the socket's, or X-Forwarded-For's only when TRUST_PROXY says so (express decides). */
  ip: string;
  userAgent: string | null;
  header(name: string): string | undefined;
  services: Services;
  logger: Logger;
  /** A procedure may set the REST status (201, 202) and extra headers; /trpc always answers 200. */
  response: { status?: number; headers: Record<string, string> };
  /** Present on real HTTP requests; absent in server-side callers. */
  res?: Response;
}

export function createRequestContext(services: Services, req: Request, res: Response): RequestContext {
  return {
    requestId: String(res.locals.requestId ?? req.headers['x-request-id'] ?? 'unknown'),
    ip: normaliseIp(req.ip ?? req.socket.remoteAddress ?? ''),
    userAgent: req.headers['user-agent'] ?? null,
    header: (name) => {
      const v = req.headers[name.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    },
    services,
    logger: (res.locals.log as Logger | undefined) ?? services.logger,
    response: { headers: {} },
    res,
  };
}

/** IPv4-mapped IPv6 (::ffff:1.2.3.4) is reported as plain IPv4 so allowlists match either way. */
export function normaliseIp(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}
