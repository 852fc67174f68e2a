import type { Migration } from './migration.js';

export type { Migration } from './migration.js';
import { identityMigration } from './0001_identity.js';
import { apiKeysMigration } from './0002_api_keys.js';
import { ssoStateMigration } from './0003_sso_state.js';
import { apiKeySecretHolderMigration } from './0004_api_key_secret_holder.js';
import { invitationsMigration } from './0005_invitations.js';
import { membershipRoleSinceMigration } from './0006_membership_role_since.js';
import { memoriesMigration } from './0010_memories.js';
import { memorySubjectsMigration } from './0011_memory_subjects.js';
import { agendaJobsMigration } from './0020_agenda_jobs.js';
import { searchIndexMigration } from './0030_search_index.js';
import { searchTermsMigration } from './0031_search_terms.js';
import { rateLimitsMigration } from './0040_rate_limits.js';
import { knowledgeMigration } from './0050_knowledge.js';
import { knowledgeSettingsMigration } from './0051_knowledge_settings.js';
import { knowledgeIdentityKeysMigration } from './0052_knowledge_identity_keys.js';
import { portalSessionsMigration } from './0060_portal_sessions.js';
import { usageDaysMigration } from './0061_usage_days.js';
import { onboardingMigration } from './0062_onboarding.js';
import { retentionMigration } from './0063_retention.js';
import { memoryListIndexesMigration } from './0064_memory_list_indexes.js';
import { auditFiltersMigration } from './0065_audit_filters.js';

/**
 * Every migration, in id order. Each area owns its own file; ids are assigned once and never reused.
 */
export const migrations: readonly Migration[] = [
  identityMigration,
  apiKeysMigration,
  ssoStateMigration,
  apiKeySecretHolderMigration,
  invitationsMigration,
  membershipRoleSinceMigration,
  memoriesMigration,
  memorySubjectsMigration,
  agendaJobsMigration,
  searchIndexMigration,
  searchTermsMigration,
  rateLimitsMigration,
  knowledgeMigration,
  knowledgeSettingsMigration,
  knowledgeIdentityKeysMigration,
  portalSessionsMigration,
  usageDaysMigration,
  onboardingMigration,
  retentionMigration,
  memoryListIndexesMigration,
  auditFiltersMigration,
];
