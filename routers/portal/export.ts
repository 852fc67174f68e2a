import { AppError } from '../../server/errors.js';
import { requirePortalStepUp } from '../../server/portal-procedures.js';
import { emptyInput } from '../../server/schemas/common.js';
import { EXPORT_PERMISSION, EXPORT_STEP_UP } from '../../server/services/portal/tenant-export.js';
import { router } from '../../server/trpc.js';
import { exportDocument } from './privileged-schemas.js';

/**
 * `POST /api/portal/export`: the tenant's memories (with every version) and knowledge objects as one
 * JSON document, streamed as an attachment. The REST path is served by `server/http/portal-export.ts`
 * (tRPC cannot stream a body) with the same checks; this declaration gives the route its OpenAPI entry,
 * its place in the security matrices, and on /trpc a 400 that points to the REST path.
 */
export const portalExportRouter = router({
  export: requirePortalStepUp(EXPORT_PERMISSION, EXPORT_STEP_UP)
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/export',
        tags: ['Portal'],
        summary:
          'Download everything the tenant stored (memories with their versions, knowledge objects) as one streamed JSON attachment; needs a data.export step-up',
        protect: true,
      },
    })
    .input(emptyInput)
    .output(exportDocument)
    .mutation((): never => {
      throw new AppError('VALIDATION_FAILED', 'the export is streamed: POST /api/portal/export on the REST path, not through /trpc');
    }),
});
