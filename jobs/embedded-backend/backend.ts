import type { AgendaBackend } from 'agenda';
import type { JobDatabase } from './job-database.js';
import { EmbeddedJobRepository } from './repository.js';

/**
 * Agenda's storage backend for the embedded profile: jobs live in the `agenda_jobs` table of the one
 * libsql file. Polling only (no notification channel of its own); the connection belongs to the
 * embedded profile, so Agenda never closes it (`ownsConnection: false`).
 *
 * Several Agenda instances — in one process or in several processes on the same file — may share it:
 * locking is atomic (see `EmbeddedJobRepository`), and the file's WAL mode and `busy_timeout` (set by
 * `openEmbeddedDatabase`) make writers queue rather than fail.
 */
export class EmbeddedAgendaBackend implements AgendaBackend {
  readonly name = 'libsql';
  readonly ownsConnection = false;
  readonly repository: EmbeddedJobRepository;

  constructor(db: JobDatabase) {
    this.repository = new EmbeddedJobRepository(db);
  }

  async connect(): Promise<void> {
    await this.repository.connect();
  }

  async disconnect(): Promise<void> {
    // The database belongs to the embedded profile, which closes it.
  }
}
