import { unauthenticated } from '../server/errors.js';
import type { UserPrincipal } from '../server/principal.js';
import { bearerTokenOf } from '../server/procedures.js';
import type { RequestMeta } from '../server/services/audit.js';

/** What routers pass on about a request, written once for every area. */

/** Where a request came from, for audit events and sessions (an empty address is unknown). */
export const metaOf = (ctx: { ip: string; userAgent: string | null }): RequestMeta => ({ ip: ctx.ip || null, userAgent: ctx.userAgent });

/** The signed-in user acting in the current tenant, with their role there. */
/** The acting user as services take it; the session binds any step-up token it presents to this session. */
export const actorOf = (p: UserPrincipal) => ({ userId: p.userId, tenantId: p.tenantId, role: p.role, sessionId: p.sessionId });

/** The token of `Authorization: Bearer <token>` on a public route that takes one (refresh, revoke); 401 when absent. */
export function requiredBearerToken(header: string | undefined): string {
  const token = bearerTokenOf(header);
  if (token === null) throw unauthenticated('missing bearer token');
  return token;
}
