import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Services } from './container.js';
import { clientAddress, requestOrigin, type TrustFn } from './http/client-address.js';
import { localsOf } from './http/locals.js';
import { storableText } from './schemas/safe-text.js';

/** Sessions and audit events store the User-Agent: a client chooses its length, so it is bounded. */
export const USER_AGENT_MAX = 512;

/**
 * What every procedure sees. Built per request by the HTTP layer (REST and /trpc alike);
 * authentication happens in procedures, not here, so public routes pay nothing for it.
 */
export interface RequestContext {
  requestId: string;
  /** Client address: the socket's, or X-Forwarded-For's only when TRUST_PROXY trusts the proxies. */
  ip: string;
  userAgent: string | null;
  header(name: string): string | undefined;
  /** A query-string parameter of the request URL (first value), whatever the procedure's input. */
  query(name: string): string | undefined;
  /**
   * scheme://host[:port] as the client addressed this server (X-Forwarded-Proto/-Host only from a
   * trusted proxy); null when unknown or for server-side callers.
   */
  origin(): string | null;
  services: Services;
  /**
   * A procedure may set the REST status (201, 202) and extra headers (/trpc always answers 200), and
   * cookies: each `Set-Cookie` value its own header line, on REST and /trpc alike.
   */
  response: { status?: number; headers: Record<string, string>; cookies: string[] };
}

export function createRequestContext(services: Services, req: IncomingMessage, res: ServerResponse, trust: TrustFn): RequestContext {
  const locals = localsOf(res);
  let params: URLSearchParams | undefined;
  return {
    requestId: locals.requestId,
    ip: normaliseIp(clientAddress(req, trust)),
    userAgent: req.headers['user-agent'] === undefined ? null : storableText(req.headers['user-agent'], USER_AGENT_MAX),
    header: (name) => {
      const v = req.headers[name.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    },
    query: (name) => {
      params ??= new URL(req.url ?? '/', 'http://localhost').searchParams;
      return params.get(name) ?? undefined;
    },
    origin: () => requestOrigin(req, trust),
    services,
    response: { headers: {}, cookies: [] },
  };
}

/** IPv4-mapped IPv6 (::ffff:1.2.3.4) is reported as plain IPv4 so allowlists match either way. */
export function normaliseIp(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}
