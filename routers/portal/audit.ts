import { requirePortalPermission } from '../../server/portal-procedures.js';
import { emptyInput } from '../../server/schemas/common.js';
import { router } from '../../server/trpc.js';
import { auditList, auditVerification } from '../auth/schemas.js';
import { toAuditEventView, toAuditVerification } from '../auth/wire.js';
import { portalAuditInput } from './privileged-schemas.js';

const tags = ['Portal'];

/**
 * `/api/portal/audit` and `/audit/verify`: the tenant's audit log for the portal's audit page, in the
 * same event shape as `/auth/audit`, with filters (type or area, actor, time); and the hash-chain check.
 */
export const portalAuditRouter = router({
  audit: requirePortalPermission('audit:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/audit',
        tags,
        summary: "The tenant's audit events, newest first, filtered by type or area (`auth.`), actor and time",
        protect: true,
      },
    })
    .input(portalAuditInput)
    .output(auditList)
    .query(async ({ ctx, input }) => {
      const { events, total } = await ctx.services.audit.list(ctx.principal.tenantId, input);
      return { events: events.map(toAuditEventView), total, limit: input.limit, offset: input.offset };
    }),

  auditVerify: requirePortalPermission('audit:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/audit/verify',
        tags,
        summary: "Recompute the tenant's audit hash chain; reports the first changed, missing or extra event",
        protect: true,
      },
    })
    .input(emptyInput)
    .output(auditVerification)
    .query(async ({ ctx }) => toAuditVerification(await ctx.services.audit.verify(ctx.principal.tenantId))),
});
