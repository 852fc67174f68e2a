import type { Migration } from './migration.js';

/**
 * When a membership's current role was set (`MembershipRecord.roleSince`): a break-glass grant
 * requested before it belongs to an earlier role and never counts. NULL, as in rows written before this
 * step and in fresh memberships, reads as the membership's `created_at`.
 */
export const membershipRoleSinceMigration: Migration = {
  id: 6,
  name: 'membership_role_since',
  up: `ALTER TABLE memberships ADD COLUMN role_since TEXT;`,
};
