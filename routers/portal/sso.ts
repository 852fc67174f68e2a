import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { AppError, unauthenticated } from '../../server/errors.js';
import {
  clearedSsoBindingCookie,
  portalCookieOf,
  portalSessionCookie,
  portalSignInProcedure,
  ssoBindingCookie,
  ssoBindingOf,
} from '../../server/portal-procedures.js';
import { publicProcedure } from '../../server/procedures.js';
import { PORTAL_SSO_CALLBACK_PATH } from '../../server/services/sso.js';
import { router } from '../../server/trpc.js';
import { metaOf } from '../request-facts.js';
import { ssoCallbackInput, ssoLoginInput } from '../sso/schemas.js';

const tags = ['Portal'];

/** Where the browser lands after the provider: the portal, with the failure in the query when there was one. */
const PORTAL_HOME = '/portal/';

const sameSecret = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * SSO into the portal: the existing OIDC flow (state, nonce, PKCE; `server/services/sso.ts`) with the
 * portal's own callback, which starts a portal cookie session instead of issuing bearer tokens.
 */
export const portalSsoRouter = router({
  ssoLogin: portalSignInProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/sso/login',
        tags,
        summary: "Start an SSO sign-in to the portal: returns the provider's authorization URL and binds the sign-in to this browser",
      },
    })
    .input(ssoLoginInput.pick({ provider: true }))
    .output(z.object({ authorization_url: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const started = await ctx.services.sso.startLogin(input.provider, ctx.origin(), metaOf(ctx), PORTAL_SSO_CALLBACK_PATH);
      ctx.response.cookies.push(ssoBindingCookie(ctx, started.state));
      return { authorization_url: started.authorization_url };
    }),

  ssoCallback: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/sso/callback',
        tags,
        summary:
          "The provider's redirect target for portal sign-ins: starts a portal session and answers 302 to /portal/ (with ?sso_error=<error code> when the sign-in failed)",
      },
      auth: 'none',
    })
    .input(ssoCallbackInput)
    .output(z.object({ redirect_to: z.string() }))
    .query(async ({ ctx, input }) => {
      ctx.response.headers['Cache-Control'] = 'no-store';
      ctx.response.status = 302;
      let target = PORTAL_HOME;
      const bound = ssoBindingOf(ctx);
      if (bound !== null) ctx.response.cookies.push(clearedSsoBindingCookie(ctx)); // a state is good for one callback
      try {
        if (!bound || !sameSecret(bound, input.state)) throw unauthenticated('this sign-in was not started in this browser; start again');
        const { userId, tenantId } = await ctx.services.sso.resolveSignIn(input, metaOf(ctx), PORTAL_SSO_CALLBACK_PATH);
        const started = await ctx.services.portal.sessions.start(userId, tenantId, { ...metaOf(ctx), method: 'sso' }, portalCookieOf(ctx));
        ctx.response.cookies.push(portalSessionCookie(ctx, started.token, started.maxAgeSeconds));
      } catch (err) {
        // A browser arrives here from the provider: it gets the portal's sign-in page with the reason, not a
        // JSON body. Only the error code travels (the page words it): the query string is the provider's to
        // fill, and a free-text message there would let anyone put their words on our sign-in page.
        if (!(err instanceof AppError)) throw err;
        target = `${PORTAL_HOME}?sso_error=${err.code}`;
      }
      ctx.response.headers.Location = target;
      return { redirect_to: target };
    }),
});
