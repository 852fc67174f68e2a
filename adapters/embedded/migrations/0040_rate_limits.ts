import type { Migration } from './migration.js';

/** Windowed attempt counters (login throttle), in the layout rate-limiter-flexible's SQLite store uses. */
export const rateLimitsMigration: Migration = {
  id: 40,
  name: 'rate_limits',
  up: `
    CREATE TABLE rate_limits (
      key    TEXT PRIMARY KEY,
      points INTEGER NOT NULL DEFAULT 0,
      expire INTEGER
    );
  `,
};
