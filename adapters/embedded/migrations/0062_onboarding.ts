import type { Migration } from './migration.js';

/** Each tenant's onboarding checklist (server/ports/onboarding.ts): when each step was first done. */
export const onboardingMigration: Migration = {
  id: 62,
  name: 'onboarding',
  up: `
    CREATE TABLE onboarding (
      tenant_id         TEXT PRIMARY KEY,
      created_api_key   TEXT,
      sent_first_memory TEXT,
      ran_first_search  TEXT,
      completed_at      TEXT
    );
  `,
};
