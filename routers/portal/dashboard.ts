import { portalProcedure, requirePortalPermission } from '../../server/portal-procedures.js';
import { emptyInput } from '../../server/schemas/common.js';
import { router } from '../../server/trpc.js';
import { metaOf } from '../request-facts.js';
import { dashboardOutput, onboardingCompleteInput, onboardingOutput } from './dashboard-schemas.js';
import { toDashboard, toOnboarding } from './dashboard-wire.js';

const tags = ['Portal'];

/**
 * `/api/portal/dashboard` and `/api/portal/onboarding`: the portal's landing page. Any member reads
 * them; the dashboard's audit events only for a role with `audit:read`. Onboarding steps tick
 * themselves from real events; `complete` lets a member (not a viewer) tick one by hand.
 */
export const portalDashboardRouter = router({
  dashboard: portalProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/dashboard',
        tags,
        summary: "The tenant's usage this period and its last 30 days, plan and quotas, recent audit events and onboarding checklist",
        protect: true,
      },
    })
    .input(emptyInput)
    .output(dashboardOutput)
    .query(async ({ ctx }) =>
      toDashboard(
        await ctx.services.portal.dashboard.get(ctx.principal.tenantId, { canReadAudit: ctx.principal.permissions.has('audit:read') }),
      ),
    ),

  onboarding: portalProcedure
    .meta({
      openapi: { method: 'GET', path: '/api/portal/onboarding', tags, summary: "The tenant's onboarding checklist", protect: true },
    })
    .input(emptyInput)
    .output(onboardingOutput)
    .query(async ({ ctx }) => toOnboarding(await ctx.services.portal.onboarding.get(ctx.principal.tenantId))),

  completeOnboardingStep: requirePortalPermission('memories:write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/onboarding/complete',
        tags,
        summary: 'Mark one onboarding step done (created_api_key, sent_first_memory or ran_first_search); answers the checklist',
        protect: true,
      },
    })
    .input(onboardingCompleteInput)
    .output(onboardingOutput)
    .mutation(async ({ ctx, input }) =>
      toOnboarding(
        await ctx.services.portal.onboarding.complete(ctx.principal.tenantId, input.step, { userId: ctx.principal.userId, ...metaOf(ctx) }),
      ),
    ),
});
