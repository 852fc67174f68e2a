import type { Migration } from './migration.js';

/**
 * The Agenda job collection of the embedded profile (`jobs/embedded-backend/`), one row per Agenda job
 * with the same fields as the MongoDB backend's `agendaJobs` documents.
 *
 * Times are integer milliseconds since the epoch (Agenda compares them on every poll; integers keep the
 * lock query a pure index range scan). `data`, `repeat_interval` and `skip_days` are JSON text.
 *
 * - `agenda_jobs_single` makes `every()` jobs (type `single`) unique per name, as the MongoDB backend's
 *   upsert does, so two processes calling `every()` at start-up share one row.
 * - `agenda_jobs_due` serves the find-and-lock query: one job name, not disabled, unlocked and due
 *   (`next_run_at` range), in (`next_run_at`, `priority`) order.
 * - `agenda_jobs_locked` serves the lock-expiry branch of that query and the "who holds locks" scans.
 */
export const agendaJobsMigration: Migration = {
  id: 20,
  name: 'agenda_jobs',
  up: `
    CREATE TABLE agenda_jobs (
      id                  TEXT PRIMARY KEY,
      name                TEXT NOT NULL,
      priority            INTEGER NOT NULL DEFAULT 0,
      type                TEXT NOT NULL DEFAULT 'normal' CHECK (type IN ('normal', 'single')),
      data                TEXT,
      next_run_at         INTEGER,
      locked_at           INTEGER,
      last_run_at         INTEGER,
      last_finished_at    INTEGER,
      failed_at           INTEGER,
      fail_count          INTEGER,
      fail_reason         TEXT,
      repeat_interval     TEXT,
      repeat_timezone     TEXT,
      repeat_at           TEXT,
      disabled            INTEGER NOT NULL DEFAULT 0,
      progress            REAL,
      fork                INTEGER,
      last_modified_by    TEXT,
      debounce_started_at INTEGER,
      start_date          INTEGER,
      end_date            INTEGER,
      skip_days           TEXT
    );

    CREATE UNIQUE INDEX agenda_jobs_single ON agenda_jobs (name) WHERE type = 'single';
    CREATE INDEX agenda_jobs_due ON agenda_jobs (name, disabled, locked_at, next_run_at, priority);
    CREATE INDEX agenda_jobs_locked ON agenda_jobs (locked_at) WHERE locked_at IS NOT NULL;
  `,
};
