import type { Config } from '../../config.js';
import type { StoragePorts } from '../../ports/index.js';
import type { AuditService } from '../audit.js';
import type { Clock } from '../clock.js';
import type { OnboardingService } from '../onboarding.js';
import type { UsageService } from '../usage.js';
import { createDashboardService, type DashboardService } from './dashboard.js';
import { createRetentionService, type RetentionService } from '../retention.js';
import { createPortalSessionService, type PortalSessionService } from './portal-sessions.js';
import { createTenantExport, type TenantExport } from './tenant-export.js';

/** What the web portal's facade (`/api/portal`) adds to the services every area shares. */
export interface PortalServices {
  /** Cookie sessions and their CSRF tokens. */
  sessions: PortalSessionService;
  /** `GET /api/portal/dashboard`: usage, history, recent audit events and the onboarding checklist. */
  dashboard: DashboardService;
  /** The tenant's onboarding checklist (its steps tick themselves from API keys, writes and searches). */
  onboarding: OnboardingService;
  /** Per-tenant retention settings and their enforcement (the `maintenance.retention` job). */
  retention: RetentionService;
  /** The tenant data export, read page by page (`POST /api/portal/export`). */
  export: TenantExport;
}

/** The shared pieces the portal's services are built from (the container passes them once). */
export interface PortalServicesDeps {
  config: Config;
  ports: StoragePorts;
  audit: AuditService;
  clock: Clock;
  usage: UsageService;
  /** Built by the container before the services that tick it (API keys, memories, search). */
  onboarding: OnboardingService;
}

/** Builds the portal's services from the shared ones (called once by the container). */
export function createPortalServices(deps: PortalServicesDeps): PortalServices {
  const { config, ports, audit, clock, usage, onboarding } = deps;
  return {
    sessions: createPortalSessionService({ config, sessions: ports.sessions, audit, clock }),
    dashboard: createDashboardService({ usage, audit, onboarding }),
    onboarding,
    retention: createRetentionService({ retention: ports.retention, audit, clock }),
    export: createTenantExport({ memories: ports.memories, knowledgeObjects: ports.knowledgeObjects, audit }),
  };
}
