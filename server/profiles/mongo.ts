import { MongoClient } from 'mongodb';
import { createMongoInvitationStore } from '../../adapters/mongo/invitations.js';
import { createMongoApiKeyStore } from '../../adapters/mongo/api-key-store.js';
import { createMongoAttemptCounters } from '../../adapters/mongo/attempt-counters.js';
import { createMongoAuditStore } from '../../adapters/mongo/audit.js';
import { createMongoBreakGlassStore } from '../../adapters/mongo/break-glass.js';
import {
  createMongoSessionStore,
  createMongoStepUpTokenStore,
  createMongoTenantStore,
  createMongoUserStore,
} from '../../adapters/mongo/identity.js';
import { createMongoRetentionStore } from '../../adapters/mongo/retention.js';
import { createMongoSsoStateStore } from '../../adapters/mongo/sso-state.js';
import { createMongoOnboardingStore } from '../../adapters/mongo/onboarding-store.js';
import { createMongoMemoryPorts } from '../../adapters/mongo/memory-ports.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { ProfileStorage } from './profile-storage.js';
import { createQdrantSearchIndex, resetQdrantSearchIndex } from '../../adapters/qdrant/search-index.js';
import type { Embedder } from '../ports/embedder.js';

/** Opens a connected MongoDB client (a parameter of the profile, so a test can see it closed without a server). */
export type MongoConnector = (url: string) => Promise<MongoClient>;

const connectMongo: MongoConnector = (url) => new MongoClient(url, { serverSelectionTimeoutMS: 10_000 }).connect();

/** The server profile: MongoDB documents and jobs; Qdrant for the search index (dense, BM25 sparse, graph). */
export async function createMongoPorts(
  config: Config,
  logger: Logger,
  embedder: Pick<Embedder, 'model' | 'dimension' | 'init'>,
  connect: MongoConnector = connectMongo,
): Promise<ProfileStorage> {
  const client = await connect(config.MONGODB_URL!);
  try {
    return await openPorts(client, config, logger, embedder);
  } catch (err) {
    // A start that fails after connecting (Qdrant down, an index build refused) leaves no open client
    // behind: its pool and monitoring timers would keep the process alive and hold server connections.
    await client.close().catch(() => undefined);
    throw err;
  }
}

async function openPorts(
  client: MongoClient,
  config: Config,
  logger: Logger,
  embedder: Pick<Embedder, 'model' | 'dimension' | 'init'>,
): Promise<ProfileStorage> {
  const db = client.db(config.MONGODB_DB);
  logger.info({ db: config.MONGODB_DB }, 'mongodb connected');
  const searchIndex = await createQdrantSearchIndex({
    url: config.QDRANT_URL!,
    ...(config.QDRANT_API_KEY ? { apiKey: config.QDRANT_API_KEY } : {}),
    collection: config.QDRANT_COLLECTION,
    embedder,
    logger,
  });
  return {
    users: await createMongoUserStore(db),
    tenants: await createMongoTenantStore(db),
    sessions: await createMongoSessionStore(db),
    stepUpTokens: await createMongoStepUpTokenStore(db),
    breakGlass: await createMongoBreakGlassStore(db),
    invitations: await createMongoInvitationStore(db),
    audit: await createMongoAuditStore(db),
    apiKeys: await createMongoApiKeyStore(db),
    ssoStates: await createMongoSsoStateStore(db),
    onboarding: createMongoOnboardingStore(db),
    jobStore: { profile: 'mongo', mongoDb: db },
    // Index work is recorded in a MongoDB outbox in the commit's transaction, then applied to Qdrant
    // (what an outage leaves behind by the `search.drain-index-outbox` job).
    ...(await createMongoMemoryPorts(client, db, searchIndex, {
      maxAttempts: config.INDEX_OUTBOX_MAX_ATTEMPTS,
      log: logger.child({ component: 'index-outbox' }),
    })),
    searchIndex,
    retention: await createMongoRetentionStore(db),
    attemptCounters: createMongoAttemptCounters(db),
    async ping() {
      await db.command({ ping: 1 });
    },
    async close() {
      await client.close();
    },
  };
}

/** For `tenant-memory reindex`: drops and recreates the Qdrant collection for the configured model. */
export async function resetMongoSearchIndex(config: Config, embedder: Pick<Embedder, 'model' | 'dimension' | 'init'>): Promise<void> {
  const index = await resetQdrantSearchIndex({
    url: config.QDRANT_URL!,
    ...(config.QDRANT_API_KEY ? { apiKey: config.QDRANT_API_KEY } : {}),
    collection: config.QDRANT_COLLECTION,
    embedder,
  });
  await index.close?.();
}
