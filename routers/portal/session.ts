import type { RequestContext } from '../../server/context.js';
import { unauthenticated } from '../../server/errors.js';
import {
  clearedPortalCookie,
  portalCookieOf,
  portalSessionCookie,
  portalSignInProcedure,
  portalUserProcedure,
} from '../../server/portal-procedures.js';
import { emptyInput } from '../../server/schemas/common.js';
import type { PortalSession } from '../../server/services/portal/portal-sessions.js';
import { router } from '../../server/trpc.js';
import { loginInput } from '../auth/schemas.js';
import { metaOf } from '../request-facts.js';
import { portalLogoutOutput, portalSessionOutput } from './session-schemas.js';
import { toPortalSession } from './session-wire.js';

const tags = ['Portal'];

/** The session body of login and `GET session`: who is signed in, their tenants and the CSRF token. */
async function sessionBody(ctx: Pick<RequestContext, 'services'>, session: PortalSession, csrfToken: string) {
  const [user, tenants] = await Promise.all([
    ctx.services.users.findById(session.userId),
    ctx.services.tenants.listForUser(session.userId),
  ]);
  if (!user) throw unauthenticated('this account no longer exists');
  return toPortalSession(session, csrfToken, user, tenants);
}

/**
 * `/api/portal/login`, `session`, `logout`: the web portal's cookie session. Sign-in sets an HttpOnly,
 * SameSite=Lax cookie (`__Host-` and Secure over HTTPS) and answers with the CSRF token every
 * state-changing portal call then sends in `X-CSRF-Token`.
 */
export const portalSessionRouter = router({
  login: portalSignInProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/login',
        tags,
        summary: 'Sign in to the web portal with email and password: sets the session cookie, returns the CSRF token',
      },
    })
    .input(loginInput)
    .output(portalSessionOutput)
    .mutation(async ({ ctx, input }) => {
      const { userId, tenantId } = await ctx.services.auth.authenticatePassword(input, metaOf(ctx));
      const started = await ctx.services.portal.sessions.start(
        userId,
        tenantId,
        { ...metaOf(ctx), method: 'password' },
        portalCookieOf(ctx),
      );
      ctx.response.cookies.push(portalSessionCookie(ctx, started.token, started.maxAgeSeconds));
      return sessionBody(ctx, started.session, started.csrfToken);
    }),

  session: portalUserProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/session',
        tags,
        summary: 'The signed-in user, their tenants and the CSRF token',
        protect: true,
      },
    })
    .input(emptyInput)
    .output(portalSessionOutput)
    .query(({ ctx }) => sessionBody(ctx, ctx.portalSession, ctx.services.portal.sessions.csrfTokenOf(ctx.portalSession.sessionId))),

  logout: portalUserProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/logout',
        tags,
        summary: 'Sign out: ends the portal session and clears its cookie',
        protect: true,
      },
    })
    .input(emptyInput)
    .output(portalLogoutOutput)
    .mutation(async ({ ctx }) => {
      await ctx.services.portal.sessions.end(ctx.portalSession, ctx.portalSession.tenantId, metaOf(ctx));
      ctx.response.cookies.push(clearedPortalCookie(ctx));
      return { signed_out: true as const };
    }),
});
