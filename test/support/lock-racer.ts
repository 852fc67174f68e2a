/**
 * Races for jobs at the repository level, in its own process: locks due `race` jobs one at a time
 * through `EmbeddedJobRepository.getNextJobToRun` as fast as it can until none is left, then prints the
 * ids it locked as one JSON line (after a `ready` line). Several of these on one file must never lock the same job.
 *
 * After its first lock each racer waits until all RACERS racers hold one (a file per racer in DATA_DIR),
 * so the rest of the race is always run by all of them at once: on a busy machine a racer that started
 * late would otherwise find every job gone, and the test would not show contention.
 *
 *   DATA_DIR=… RACERS=3 node --import tsx test/support/lock-racer.ts
 */
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openEmbeddedDatabase } from '../../adapters/embedded/database.js';
import { EmbeddedJobRepository } from '../../jobs/embedded-backend/repository.js';

const db = openEmbeddedDatabase(process.env.DATA_DIR!);
const repo = new EmbeddedJobRepository(db);
await repo.connect();
// Start together: report ready, then wait for the `go` row, so every racer is warm when the race begins.
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
while (!db.prepare("SELECT 1 FROM agenda_jobs WHERE name = 'go'").get([])) await new Promise((r) => setTimeout(r, 5));
const racers = Number(process.env.RACERS ?? 1);
const ids: string[] = [];
for (;;) {
  const job = await repo.getNextJobToRun('race', new Date(Date.now() + 1000), new Date(0), undefined, {
    lastModifiedBy: String(process.pid),
  });
  if (!job) break;
  ids.push(String(job._id));
  if (ids.length === 1) {
    writeFileSync(path.join(process.env.DATA_DIR!, `racer-${process.pid}.started`), '');
    // A racer that died before its first lock must not leave the others waiting until the test times out.
    const deadline = Date.now() + 30_000;
    while (readdirSync(process.env.DATA_DIR!).filter((f) => f.endsWith('.started')).length < racers) {
      if (Date.now() > deadline) throw new Error(`only some of the ${racers} racers started within 30 s`);
      await new Promise((r) => setTimeout(r, 2));
    }
  }
}
process.stdout.write(`${JSON.stringify({ pid: process.pid, ids })}\n`);
db.close();
