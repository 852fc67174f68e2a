import type { RequestContext } from '../server/context.js';
import { publicProcedure } from '../server/procedures.js';
import { router } from '../server/trpc.js';
import { toTokenResponse } from './auth/wire.js';
import { metaOf } from './request-facts.js';
import { tokenResponse } from './auth/schemas.js';
import { ssoCallbackInput, ssoLoginInput, ssoLoginOutput, ssoProvidersInput, ssoProvidersOutput } from './sso/schemas.js';

const tags = ['SSO'];

/** `?redirect=1` on the POST (trpc-to-openapi reads POST input from the body only). */
function redirectRequested(ctx: RequestContext): boolean {
  const value = ctx.query('redirect');
  return value === '1' || value === 'true';
}

/** OIDC single sign-on: list providers, start a sign-in, complete it at the callback. */
export const ssoRouter = router({
  providers: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/auth/sso/providers', tags, summary: 'The configured SSO providers' }, auth: 'none' })
    .input(ssoProvidersInput)
    .output(ssoProvidersOutput)
    .query(({ ctx }) => ({ providers: ctx.services.sso.listProviders() })),

  login: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/sso/login',
        tags,
        summary:
          'Start an OIDC sign-in: returns the authorization URL and state (with ?redirect=1 or redirect: true, answers 302 to it). 400 for an unknown provider, 503 when the provider is unreachable, 429 with Retry-After once the client address has used its budget of starts',
      },
      auth: 'none',
    })
    .input(ssoLoginInput)
    .output(ssoLoginOutput)
    .mutation(async ({ ctx, input }) => {
      const started = await ctx.services.sso.startLogin(input.provider, ctx.origin(), metaOf(ctx));
      ctx.response.headers['Cache-Control'] = 'no-store';
      if (input.redirect === true || redirectRequested(ctx)) {
        ctx.response.status = 302;
        ctx.response.headers.Location = started.authorization_url;
      }
      return started;
    }),

  callback: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/auth/callback',
        tags,
        summary:
          "Complete an OIDC sign-in (the provider's redirect target): returns the token response. 401 for an unknown, expired or reused state, a provider error or a failed validation; 409 when an account has the email but the provider did not verify it; 503 when the provider is unreachable",
      },
      auth: 'none',
    })
    .input(ssoCallbackInput)
    .output(tokenResponse)
    .query(async ({ ctx, input }) => {
      ctx.response.headers['Cache-Control'] = 'no-store';
      return toTokenResponse(await ctx.services.sso.completeLogin(input, metaOf(ctx)));
    }),
});
