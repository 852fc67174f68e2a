import type { Migration } from './migration.js';

/**
 * Per-day usage counters (UTC `YYYY-MM-DD`) for the portal dashboard's 30-day history. Kept by
 * triggers on `usage_periods`: every path that counts a write, read or search (the enqueue transaction,
 * the batched read and search counts) adds the same delta to today's row in its own statement's
 * transaction, so no caller changes and nothing new is awaited on the hot path. The day is SQLite's
 * `date('now')` (UTC), the period the service clock's month: they differ only around midnight of a
 * month's last day, by the length of one statement.
 */
export const usageDaysMigration: Migration = {
  id: 61,
  name: 'usage_days',
  up: `
    CREATE TABLE usage_days (
      tenant_id TEXT NOT NULL,
      day       TEXT NOT NULL,
      writes    INTEGER NOT NULL DEFAULT 0,
      reads     INTEGER NOT NULL DEFAULT 0,
      searches  INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (tenant_id, day)
    ) WITHOUT ROWID;

    CREATE TRIGGER usage_days_after_insert AFTER INSERT ON usage_periods BEGIN
      INSERT INTO usage_days (tenant_id, day, writes, reads, searches)
        VALUES (NEW.tenant_id, date('now'), NEW.writes, NEW.reads, NEW.searches)
        ON CONFLICT (tenant_id, day) DO UPDATE SET writes = writes + excluded.writes, reads = reads + excluded.reads,
          searches = searches + excluded.searches;
    END;

    CREATE TRIGGER usage_days_after_update AFTER UPDATE ON usage_periods BEGIN
      INSERT INTO usage_days (tenant_id, day, writes, reads, searches)
        VALUES (NEW.tenant_id, date('now'), NEW.writes - OLD.writes, NEW.reads - OLD.reads, NEW.searches - OLD.searches)
        ON CONFLICT (tenant_id, day) DO UPDATE SET writes = writes + excluded.writes, reads = reads + excluded.reads,
          searches = searches + excluded.searches;
    END;
  `,
};
