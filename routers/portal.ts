import { mergeRouters } from '../server/trpc.js';
import { portalAuditRouter } from './portal/audit.js';
import { portalExportRouter } from './portal/export.js';
import { portalRetentionRouter } from './portal/retention.js';
import { portalSessionRouter } from './portal/session.js';
import { portalSsoRouter } from './portal/sso.js';
import { portalStepUpRouter } from './portal/step-up.js';

/**
 * The spec's portal facade (`/api/portal/*`): the procedures the web portal calls through the typed
 * client, each also on its REST path. Cookie session only (`server/portal-procedures.ts`).
 */
export const portalRouter = mergeRouters(
  portalSessionRouter,
  portalSsoRouter,
  portalStepUpRouter,
  portalAuditRouter,
  portalRetentionRouter,
  portalExportRouter,
);
