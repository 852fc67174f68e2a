import { requirePortalPermission, requirePortalStepUp } from '../../server/portal-procedures.js';
import type { RetentionSettings } from '../../server/ports/retention.js';
import { emptyInput } from '../../server/schemas/common.js';
import { router } from '../../server/trpc.js';
import { metaOf } from '../request-facts.js';
import { retentionInput, retentionOutput } from './privileged-schemas.js';

const tags = ['Portal'];

const toRetentionView = (s: RetentionSettings) => ({
  deleted_days: s.deletedDays,
  superseded_days: s.supersededDays,
  updated_at: s.updatedAt,
  updated_by: s.updatedBy,
});

/**
 * `/api/portal/retention`: how long the tenant keeps replaced memory versions (and, stated, deleted
 * items), enforced by the `maintenance.retention` job. Changing it is a privileged action (step-up
 * `retention.override`).
 */
export const portalRetentionRouter = router({
  retention: requirePortalPermission('tenant:read')
    .meta({
      openapi: { method: 'GET', path: '/api/portal/retention', tags, summary: "The tenant's retention settings", protect: true },
    })
    .input(emptyInput)
    .output(retentionOutput)
    .query(async ({ ctx }) => toRetentionView(await ctx.services.portal.retention.get(ctx.principal.tenantId))),

  setRetention: requirePortalStepUp('retention:override', 'retention.override')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/retention',
        tags,
        summary:
          'Set how many days replaced memory versions and deleted items are kept (null: forever); needs a retention.override step-up',
        protect: true,
      },
    })
    .input(retentionInput)
    .output(retentionOutput)
    .mutation(async ({ ctx, input }) => {
      const settings = { deletedDays: input.deleted_days, supersededDays: input.superseded_days };
      return toRetentionView(await ctx.services.portal.retention.set(ctx.principal, settings, metaOf(ctx)));
    }),
});
