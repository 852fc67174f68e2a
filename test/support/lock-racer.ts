/**
 * Races for jobs at the repository level, in its own process: locks due `race` jobs one at a time
 * through `EmbeddedJobRepository.getNextJobToRun` as fast as it can until none is left, then prints the
 * ids it locked as one JSON line (after a `ready` line). Several of these on one file must never lock the same job.
 *
 *   DATA_DIR=… node --import tsx test/support/lock-racer.ts
 */
import { openEmbeddedDatabase } from '../../adapters/embedded/database.js';
import { EmbeddedJobRepository } from '../../jobs/embedded-backend/repository.js';

const db = openEmbeddedDatabase(process.env.DATA_DIR!);
const repo = new EmbeddedJobRepository(db);
await repo.connect();
// Start together: report ready, then wait for the `go` row, so every racer is warm when the race begins.
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
while (!db.prepare("SELECT 1 FROM agenda_jobs WHERE name = 'go'").get([])) await new Promise((r) => setTimeout(r, 5));
const ids: string[] = [];
for (;;) {
  const job = await repo.getNextJobToRun('race', new Date(Date.now() + 1000), new Date(0), undefined, { lastModifiedBy: String(process.pid) });
  if (!job) break;
  ids.push(String(job._id));
}
process.stdout.write(`${JSON.stringify({ pid: process.pid, ids })}\n`);
db.close();
