import { portalProcedure } from '../../server/portal-procedures.js';
import { stepUpActions } from '../../server/services/auth.js';
import { router } from '../../server/trpc.js';
import { stepUpInput, stepUpOutput } from '../auth/schemas.js';
import { toStepUpResponse } from '../auth/wire.js';
import { metaOf } from '../request-facts.js';

/**
 * `POST /api/portal/step-up`: re-authentication inside the portal session for one privileged action.
 * Password users send their password; SSO users qualify when their portal session came from an SSO
 * sign-in of the last 5 minutes (the portal sends them through the provider again). The token is bound
 * to this user, tenant, portal session and action, and sent back as `X-Step-Up-Token`.
 */
export const portalStepUpRouter = router({
  stepUp: portalProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/step-up',
        tags: ['Portal'],
        summary: `Re-authenticate for one privileged portal action (${stepUpActions.join(', ')}); returns a short-lived token for X-Step-Up-Token`,
        protect: true,
      },
    })
    .input(stepUpInput)
    .output(stepUpOutput)
    .mutation(async ({ ctx, input }) => toStepUpResponse(await ctx.services.auth.stepUp(ctx.principal, input, metaOf(ctx)))),
});
