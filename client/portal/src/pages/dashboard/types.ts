import type { RouterOutputs } from '../../api';

export type Dashboard = RouterOutputs['portal']['dashboard'];
export type Onboarding = Dashboard['onboarding_status'];
export type UsageDay = Dashboard['usage_history'][number];
export type AuditEvent = Dashboard['recent_audit_events'][number];
