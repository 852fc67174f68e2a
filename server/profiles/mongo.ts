import { MongoClient } from 'mongodb';
import { createMongoAuditPort } from '../../adapters/mongo/audit.js';
import { createMongoBreakGlassPort } from '../../adapters/mongo/break-glass.js';
import { createMongoSessionsPort, createMongoStepUpPort, createMongoTenantsPort, createMongoUsersPort } from '../../adapters/mongo/identity.js';
import { createMongoSsoStateStore } from '../../adapters/mongo/sso-state.js';
import { createMongoMemoryPorts } from '../../adapters/mongo/memories.js';
import { createMongoApiKeyStore } from '../../adapters/mongo/api-key-store.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { StoragePorts } from '../ports/index.js';

/** The server profile: MongoDB documents (and Qdrant vectors, wired by the retrieval layer). */
export async function createMongoPorts(config: Config, logger: Logger): Promise<StoragePorts> {
  const client = new MongoClient(config.MONGODB_URL!, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  const db = client.db(config.MONGODB_DB);
  logger.info({ db: config.MONGODB_DB }, 'mongodb connected');
  return {
    users: await createMongoUsersPort(db),
    tenants: await createMongoTenantsPort(db),
    sessions: await createMongoSessionsPort(db),
    stepUpTokens: await createMongoStepUpPort(db),
    breakGlass: await createMongoBreakGlassPort(db),
    audit: await createMongoAuditPort(db),
    apiKeys: await createMongoApiKeyStore(db),
    ssoStates: await createMongoSsoStateStore(db),
    jobStore: { profile: 'mongo', mongoDb: db },
    // Search index work waits in the memory outbox until the retrieval layer passes its Qdrant index here.
    ...(await createMongoMemoryPorts(client, db, null)),
    async ping() {
      await db.command({ ping: 1 });
    },
    async close() {
      await client.close();
    },
  };
}
