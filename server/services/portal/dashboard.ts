import type { AuditEventRecord } from '../../ports/audit.js';
import type { OnboardingState } from '../../ports/onboarding.js';
import type { UsageDay } from '../../ports/usage.js';
import type { AuditService } from '../audit.js';
import type { OnboardingService } from '../onboarding.js';
import type { UsageReport, UsageService } from '../usage.js';

/** Days of `usage_history` on the dashboard. */
export const DASHBOARD_HISTORY_DAYS = 30;
/** Audit events on the dashboard (newest first). */
export const DASHBOARD_AUDIT_EVENTS = 10;

export interface Dashboard {
  /** The same report as `GET /usage` for the whole tenant (counters of the current period, totals, plan, limits). */
  usage: UsageReport;
  history: UsageDay[];
  /** Newest first; empty when the viewer's role may not read the audit log. */
  recentAuditEvents: AuditEventRecord[];
  onboarding: OnboardingState;
}

export interface DashboardService {
  get(tenantId: string, viewer: { canReadAudit: boolean }): Promise<Dashboard>;
}

/**
 * The portal's dashboard: a composition of the usage, audit and onboarding services (no logic of its
 * own about what they count), read in parallel so its latency is that of the slowest part.
 */
export function createDashboardService(deps: {
  usage: Pick<UsageService, 'snapshot' | 'history'>;
  audit: Pick<AuditService, 'list'>;
  onboarding: Pick<OnboardingService, 'get'>;
}): DashboardService {
  return {
    async get(tenantId, viewer) {
      const [usage, history, audit, onboarding] = await Promise.all([
        deps.usage.snapshot(tenantId),
        deps.usage.history(tenantId, DASHBOARD_HISTORY_DAYS),
        viewer.canReadAudit ? deps.audit.list(tenantId, { limit: DASHBOARD_AUDIT_EVENTS, offset: 0 }) : null,
        deps.onboarding.get(tenantId),
      ]);
      return { usage, history, recentAuditEvents: audit?.events ?? [], onboarding };
    },
  };
}
