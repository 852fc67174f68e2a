import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { describe, it } from 'vitest';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../adapters/embedded/database.js';
import { createJobQueue } from '../../jobs/agenda.js';
import { describeJobQueueContract } from './job-queue.contract.js';

// Embedded: every queue opens its own connection to one database file, as separate processes would.
describeJobQueueContract('embedded (libsql)', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'job-queue-contract-'));
  const connections: EmbeddedDatabase[] = [];
  return {
    queue(options) {
      const db = openEmbeddedDatabase(dir);
      connections.push(db);
      return createJobQueue({ profile: 'embedded', db }, { logger: options.logger!, ...options });
    },
    childEnv: { JOB_STORE: 'embedded', DATA_DIR: dir },
    async close() {
      for (const db of connections) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

// The server profile's backend (@agendajs/mongo-backend) runs the same suite when MONGODB_URL points
// at a server; each test gets its own database, each queue its own client.
const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  describeJobQueueContract('mongodb', async () => {
    const dbName = `tm_jobs_${randomUUID().replace(/-/g, '')}`;
    const clients: MongoClient[] = [];
    const connect = async () => {
      const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 10_000 });
      await client.connect();
      clients.push(client);
      return client;
    };
    const admin = await connect();
    return {
      queue(options) {
        const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 10_000 });
        clients.push(client);
        // The driver connects on first use; Agenda gets a Db whose client is ours to close.
        return createJobQueue({ profile: 'mongo', mongoDb: client.db(dbName) }, { logger: options.logger!, ...options });
      },
      childEnv: { JOB_STORE: 'mongo', MONGODB_URL: mongoUrl, MONGODB_DB: dbName },
      async close() {
        await admin.db(dbName).dropDatabase();
        for (const c of clients) await c.close();
      },
    };
  });
} else {
  describe('JobQueue contract: mongodb', () => {
    it.skip('skipped: set MONGODB_URL to run the job queue contract against MongoDB', () => {});
  });
}
