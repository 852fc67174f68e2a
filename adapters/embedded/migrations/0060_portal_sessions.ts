import type { Migration } from './migration.js';

/**
 * Sessions serve one door each: `api` (bearer tokens, every session before the portal) or `portal`
 * (the web portal's cookie). Refresh and bearer authentication refuse a portal session's credential.
 */
export const portalSessionsMigration: Migration = {
  id: 60,
  name: 'portal_sessions',
  up: `
    ALTER TABLE sessions ADD COLUMN channel TEXT NOT NULL DEFAULT 'api' CHECK (channel IN ('api', 'portal'));
  `,
};
