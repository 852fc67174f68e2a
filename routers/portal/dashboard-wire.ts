import type { z } from 'zod';
import type { OnboardingState } from '../../server/ports/onboarding.js';
import type { Dashboard } from '../../server/services/portal/dashboard.js';
import { toAuditEventView } from '../auth/wire.js';
import type { dashboardOutput, onboardingOutput } from './dashboard-schemas.js';

/** The portal dashboard's and onboarding's wire form (snake_case) of what their services return. */

export const toOnboarding = (s: OnboardingState): z.infer<typeof onboardingOutput> => ({
  created_api_key: s.steps.created_api_key !== null,
  sent_first_memory: s.steps.sent_first_memory !== null,
  ran_first_search: s.steps.ran_first_search !== null,
  completed_at: s.completedAt,
});

/** Share of a limit used, in percent to one decimal; null when unlimited. */
const share = (used: number, limit: number | null) => (limit === null ? null : limit === 0 ? 100 : Math.round((used / limit) * 1000) / 10);

export function toDashboard(d: Dashboard): z.infer<typeof dashboardOutput> {
  const u = d.usage;
  // A whole-tenant report always has its period counters (they are withheld only for namespace-restricted keys).
  const writes = u.writes ?? 0;
  const reads = u.reads ?? 0;
  const searches = u.searches ?? 0;
  const shares = [share(writes, u.limits.writes), share(reads, u.limits.reads), share(u.storageUsedBytes, u.limits.storage_bytes)];
  return {
    total_memories: u.memoryCount,
    writes_this_period: writes,
    reads_this_period: reads,
    searches_this_period: searches,
    storage_used: u.storageUsedBytes,
    current_plan: u.plan,
    period: u.period,
    period_starts_at: `${u.period}-01T00:00:00.000Z`,
    period_ends_at: u.periodEndsAt,
    quota_status: {
      used_percentage: Math.max(0, ...shares.filter((s): s is number => s !== null)),
      writes_used: writes,
      writes_limit: u.limits.writes,
      reads_used: reads,
      reads_limit: u.limits.reads,
      searches_used: searches,
      searches_limit: u.limits.searches,
      storage_used_bytes: u.storageUsedBytes,
      storage_limit_bytes: u.limits.storage_bytes,
    },
    usage_history: d.history.map((h) => ({ date: h.day, writes: h.writes, reads: h.reads, searches: h.searches })),
    recent_audit_events: d.recentAuditEvents.map(toAuditEventView),
    onboarding_status: toOnboarding(d.onboarding),
  };
}
