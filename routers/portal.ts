import { mergeRouters } from '../server/trpc.js';
import { portalCredentialsRouter } from './portal/credentials.js';
import { portalDashboardRouter } from './portal/dashboard.js';
import { portalMemoriesRouter } from './portal/memories.js';
import { portalMemoryDetailRouter } from './portal/memory-detail.js';
import { portalSearchRouter } from './portal/search.js';
import { portalBreakGlassRouter } from './portal/break-glass.js';
import { portalKnowledgeRouter } from './portal/knowledge.js';
import { portalMembersRouter } from './portal/members.js';
import { portalAuditRouter } from './portal/audit.js';
import { portalExportRouter } from './portal/export.js';
import { portalRetentionRouter } from './portal/retention.js';
import { portalSessionRouter } from './portal/session.js';
import { portalSsoRouter } from './portal/sso.js';
import { portalStepUpRouter } from './portal/step-up.js';
import { portalTenantsRouter } from './portal/tenants.js';

/**
 * The spec's portal facade (`/api/portal/*`): the procedures the web portal calls through the typed
 * client, each also on its REST path. Cookie session only (`server/portal-procedures.ts`).
 */
export const portalRouter = mergeRouters(
  portalSessionRouter,
  portalSsoRouter,
  portalStepUpRouter,
  portalTenantsRouter,
  portalDashboardRouter,
  portalCredentialsRouter,
  // The memory list and bulk deletion before the detail: /memories/delete must match ahead of /memories/{id}.
  portalMemoriesRouter,
  portalMemoryDetailRouter,
  portalSearchRouter,
  portalKnowledgeRouter,
  portalMembersRouter,
  portalBreakGlassRouter,
  portalAuditRouter,
  portalRetentionRouter,
  portalExportRouter,
);
