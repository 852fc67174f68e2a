/**
 * A job worker in its own process, for the job-queue tests: it opens the store named by its
 * environment, runs the test definitions and prints one JSON line per event on stdout.
 *
 *   JOB_STORE=embedded DATA_DIR=…                 or   JOB_STORE=mongo MONGODB_URL=… MONGODB_DB=…
 *   WORKER_NAME, PROCESS_EVERY_MS, LOCK_LIMIT, STOP_TIMEOUT_MS (optional)
 *
 * SIGTERM stops it gracefully (prints `stopped`, exits 0); `test.gate` jobs run until then. Started
 * with `node --import tsx`.
 */
import { Writable } from 'node:stream';
import { MongoClient } from 'mongodb';
import { openEmbeddedDatabase } from '../../adapters/embedded/database.js';
import { createJobQueue, type JobStore } from '../../jobs/agenda.js';
import { createLogger } from '../../server/logger.js';
import { testJobDefinitions, type JobEvent, type TestJobContext } from './job-fixtures.js';

const env = process.env;
const worker = env.WORKER_NAME ?? `child-${process.pid}`;
const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

let close: () => Promise<void>;
let store: JobStore;
if (env.JOB_STORE === 'mongo') {
  const client = await MongoClient.connect(env.MONGODB_URL!);
  store = { profile: 'mongo', mongoDb: client.db(env.MONGODB_DB) };
  close = () => client.close();
} else {
  const db = openEmbeddedDatabase(env.DATA_DIR!);
  store = { profile: 'embedded', db };
  close = async () => void db.close();
}

// test.gate holds its job until SIGTERM has begun the stop, so a test stops a worker with a job
// running whatever the machine's speed.
let releaseGates!: () => void;
const stopBegun = new Promise<void>((resolve) => (releaseGates = resolve));
const ctx: TestJobContext = {
  worker,
  maxSleepMs: 10 * 60_000,
  record: (e) => print({ ...e, worker, at: Date.now() } satisfies JobEvent),
  gate: () => stopBegun,
};
// Logs go to stderr so that stdout carries only events.
const logger = createLogger(env.LOG_LEVEL ?? 'warn', new Writable({ write: (c, _e, cb) => (process.stderr.write(c), cb()) }));
const queue = createJobQueue<TestJobContext>(store, {
  logger,
  context: () => ctx,
  workerName: worker,
  processEveryMs: Number(env.PROCESS_EVERY_MS ?? 100),
  lockLimit: Number(env.LOCK_LIMIT ?? 0),
}).defineAll(testJobDefinitions);

await queue.start();
print({ event: 'ready', worker, at: Date.now() });

process.once('SIGTERM', () => {
  void (async () => {
    // stop() takes no new job synchronously, before the running one may finish.
    const stopping = queue.stop(Number(env.STOP_TIMEOUT_MS ?? 10_000));
    releaseGates();
    const result = await stopping;
    print({ event: 'stopped', worker, at: Date.now(), finished: result.finished });
    await close();
    process.exit(0);
  })();
});
