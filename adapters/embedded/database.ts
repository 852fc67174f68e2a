import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'libsql';
import { migrations, type Migration } from './migrations/index.js';

export type EmbeddedDatabase = InstanceType<typeof Database>;

/**
 * Opens (or creates) the one database file of the embedded profile and brings its schema up to date.
 * WAL lets readers proceed while the single writer commits; `busy_timeout` lets a second process
 * (a separate `tenant-memory worker`) wait for the write lock instead of failing.
 */
export function openEmbeddedDatabase(dataDir: string, fileName = 'tenant-memory.db'): EmbeddedDatabase {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, fileName));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 10000');
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
 * Applies every migration whose id is above the recorded schema version, each in its own transaction,
 * in id order. Ids are never reused; a database newer than this code refuses to open rather than
 * running against a schema it does not know.
 */
export function runMigrations(db: EmbeddedDatabase, all: readonly Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const ordered = [...all].sort((a, b) => a.id - b.id);
  const ids = new Set<number>();
  for (const m of ordered) {
    if (ids.has(m.id)) throw new Error(`duplicate migration id ${m.id} (${m.name})`);
    ids.add(m.id);
  }
  const row = db.prepare('SELECT MAX(id) AS v FROM schema_migrations').get() as { v: number | null };
  const current = row.v ?? 0;
  const newest = ordered.at(-1)?.id ?? 0;
  if (current > newest) {
    throw new Error(`database schema version ${current} is newer than this build knows (${newest}); upgrade tenant-memory`);
  }
  const record = db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)');
  for (const m of ordered) {
    if (m.id <= current) continue;
    db.transaction(() => {
      if (typeof m.up === 'string') db.exec(m.up);
      else m.up(db);
      record.run([m.id, m.name, new Date().toISOString()]);
    })();
  }
}
