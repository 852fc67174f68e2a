import path from 'node:path';
import Database from 'libsql';
import { createPrivateFile, ensurePrivateDir } from '../../server/private-files.js';
import { migrations, type Migration } from './migrations/index.js';

export type EmbeddedDatabase = InstanceType<typeof Database>;

export const EMBEDDED_DB_FILE = 'tenant-memory.db';

/** The database file and the WAL and shared-memory files SQLite keeps beside it. */
export const embeddedDatabaseFiles = (dataDir: string, fileName = EMBEDDED_DB_FILE) =>
  ['', '-wal', '-shm'].map((suffix) => path.join(dataDir, fileName + suffix));

/** How long a statement waits for another connection's write lock before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 10_000;

/**
 * Opens (or creates) the one database file of the embedded profile and brings its schema up to date.
 * WAL lets readers proceed while the single writer commits; `busy_timeout` lets a second process
 * (a separate `tenant-memory worker`) wait for the write lock instead of failing.
 */
export function openEmbeddedDatabase(dataDir: string, fileName = EMBEDDED_DB_FILE): EmbeddedDatabase {
  ensurePrivateDir(dataDir);
  // Created empty and owner-only before SQLite opens it: SQLite reads an empty file as a new database
  // and gives the -wal and -shm files it creates the database file's mode.
  createPrivateFile(path.join(dataDir, fileName));
  const db = new Database(path.join(dataDir, fileName));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Reads: a 64 MiB page cache per connection (SQLite's default is 2 MiB, which a busy write path
  // churns through, so index pages were read again with a system call each) and the file mapped up to
  // 1 GiB, so a page outside the cache is a memory read (figures: docs/performance.md#page-cache-memory-map-and-checkpoints).
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 1073741824');
  // Writes: checkpoint the WAL into the database every 10,000 pages (~40 MB) rather than SQLite's
  // 1,000. Pages that consecutive commits rewrite (index interiors, the keyword index's segments,
  // counters) are then copied once per checkpoint instead of once per ~1,000 pages, which shortens
  // consolidation's commits (figures: docs/performance.md#page-cache-memory-map-and-checkpoints).
  db.pragma('wal_autocheckpoint = 10000');
  // After a checkpoint resets the WAL, truncate the file back to 64 MiB rather than keeping its peak size.
  db.pragma('journal_size_limit = 67108864');
  runMigrations(db, migrations);
  return db;
}

/** An in-memory database with the full schema, for tests that do not need a file. */
export function openInMemoryDatabase(): EmbeddedDatabase {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  runMigrations(db, migrations);
  return db;
}

/**
 * Applies every migration not yet recorded, each in its own transaction, in id order. The set of
 * applied ids is tracked (not just the highest), so a lower-id migration added later still runs.
 * A database that records a migration this build does not know refuses to open rather than running
 * against a schema it does not understand.
 */
export function runMigrations(db: EmbeddedDatabase, all: readonly Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const ordered = [...all].sort((a, b) => a.id - b.id);
  const known = new Set<number>();
  for (const m of ordered) {
    if (known.has(m.id)) throw new Error(`duplicate migration id ${m.id} (${m.name})`);
    known.add(m.id);
  }
  const applied = new Set((db.prepare('SELECT id FROM schema_migrations').all() as { id: number }[]).map((r) => r.id));
  const unknown = [...applied].filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new Error(`database has migrations this build does not know (${unknown.join(', ')}); upgrade tenant-memory`);
  }
  const record = db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)');
  for (const m of ordered) {
    if (applied.has(m.id)) continue;
    db.transaction(() => {
      if (typeof m.up === 'string') db.exec(m.up);
      else m.up(db);
      record.run([m.id, m.name, new Date().toISOString()]);
    })();
  }
}
