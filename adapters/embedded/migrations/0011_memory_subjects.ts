import type { Migration } from './migration.js';

/**
 * Same-subject candidate lookups read the most recently committed memories of ONE subject key:
 * `memory_subjects` carries `committed_at` in its key so that lookup is a bounded range scan
 * (newest first, LIMIT n) however many memories share the key. Keys of memories committed before
 * this migration are rebuilt when those memories are next consolidated.
 */
export const memorySubjectsMigration: Migration = {
  id: 11,
  name: 'memory_subjects_by_recency',
  up: `
    DROP TABLE memory_subjects;
    CREATE TABLE memory_subjects (
      tenant_id    TEXT NOT NULL,
      namespace    TEXT NOT NULL,
      subject      TEXT NOT NULL,
      committed_at TEXT NOT NULL,
      memory_id    TEXT NOT NULL,
      PRIMARY KEY (tenant_id, namespace, subject, committed_at, memory_id)
    ) WITHOUT ROWID;
    CREATE INDEX memory_subjects_memory ON memory_subjects (memory_id);
  `,
};
