import path from 'node:path';
import { createEmbeddedInvitationStore } from '../../adapters/embedded/invitations.js';
import { createEmbeddedAuditStore } from '../../adapters/embedded/audit.js';
import { createEmbeddedBreakGlassStore } from '../../adapters/embedded/break-glass.js';
import { createEmbeddedApiKeyStore } from '../../adapters/embedded/api-key-store.js';
import { createEmbeddedAttemptCounters } from '../../adapters/embedded/attempt-counters.js';
import { fileChangeSignal } from '../../adapters/embedded/change-signal.js';
import { withCredentialCache } from '../../adapters/embedded/credential-cache.js';
import { embeddedDatabaseFiles, openEmbeddedDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedIdempotencyStore } from '../../adapters/embedded/idempotency-store.js';
import { createEmbeddedKnowledgeObjectStore } from '../../adapters/embedded/knowledge-object-store.js';
import { createEmbeddedKnowledgeStructureStore } from '../../adapters/embedded/knowledge-structure-store.js';
import { createEmbeddedKnowledgeSettingsStore } from '../../adapters/embedded/knowledge-settings-store.js';
import { createEmbeddedMemoryStore } from '../../adapters/embedded/memory-store.js';
import { createEmbeddedRetentionStore } from '../../adapters/embedded/retention.js';
import { deleteIndexRows, writeIndexRows } from '../../adapters/embedded/search/rows.js';
import { EmbeddedSearchIndex, resetIndexForModel } from '../../adapters/embedded/search-index.js';
import type { IndexInfo } from '../ports/search-index.js';
import { createEmbeddedUsageStore } from '../../adapters/embedded/usage-store.js';
import { createEmbeddedOnboardingStore } from '../../adapters/embedded/onboarding-store.js';
import { createEmbeddedWriteQueue } from '../../adapters/embedded/write-queue.js';
import { createEmbeddedSessionStore } from '../../adapters/embedded/sessions.js';
import { createEmbeddedSsoStateStore } from '../../adapters/embedded/sso-state.js';
import { createEmbeddedStepUpTokenStore } from '../../adapters/embedded/step-up.js';
import { createEmbeddedTenantStore } from '../../adapters/embedded/tenants.js';
import { withTenantCache } from '../../adapters/embedded/tenant-cache.js';
import { createEmbeddedUserStore } from '../../adapters/embedded/users.js';
import { jwtSecretFile, type Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { ProfileStorage } from './profile-storage.js';
import { looseMode, octal } from '../private-files.js';

/** The default profile: one libsql file in DATA_DIR holds documents, indexes and the job queue. */
export function createEmbeddedPorts(config: Config, logger: Logger, embedding: IndexInfo): ProfileStorage {
  const db = openEmbeddedDatabase(config.DATA_DIR);
  // Refuses to open an index built with another embedding model (run `tenant-memory reindex`).
  const searchIndex = new EmbeddedSearchIndex(db, embedding);
  logger.debug({ dataDir: config.DATA_DIR }, 'embedded storage opened');
  warnAboutLooseModes(config, logger);
  return {
    users: createEmbeddedUserStore(db),
    // Every authenticated request checks its tenant's status: remembered per process, dropped in every
    // process on this DATA_DIR as soon as one of them suspends or resumes a tenant (the signal file).
    tenants: withTenantCache(createEmbeddedTenantStore(db), fileChangeSignal(path.join(config.DATA_DIR, 'tenant-changes')), {
      onSignalError: (err) => logger.error({ err }, 'cannot signal a tenant change to other processes; this process stops caching tenants'),
    }),
    sessions: createEmbeddedSessionStore(db),
    stepUpTokens: createEmbeddedStepUpTokenStore(db),
    breakGlass: createEmbeddedBreakGlassStore(db),
    invitations: createEmbeddedInvitationStore(db),
    audit: createEmbeddedAuditStore(db),
    // Every X-API-Key request looks its key up: remembered per process, dropped in every process on
    // this DATA_DIR as soon as one of them rotates or revokes a key (the signal file).
    apiKeys: withCredentialCache(createEmbeddedApiKeyStore(db), fileChangeSignal(path.join(config.DATA_DIR, 'api-key-changes')), {
      onSignalError: (err) => logger.error({ err }, 'cannot signal an API-key change to other processes; this process stops caching keys'),
    }),
    ssoStates: createEmbeddedSsoStateStore(db),
    jobStore: { profile: 'embedded', db },
    // Consolidation commits write the search index rows in the same libsql transaction.
    memories: createEmbeddedMemoryStore(db, {
      upsert: (tenantId, doc) => writeIndexRows(db, tenantId, doc),
      remove: (tenantId, memoryId) => void deleteIndexRows(db, tenantId, memoryId),
    }),
    writeQueue: createEmbeddedWriteQueue(db),
    searchIndex,
    // Index rows commit in the memory's own transaction: there is nothing to drain.
    indexOutbox: null,
    usage: createEmbeddedUsageStore(db),
    onboarding: createEmbeddedOnboardingStore(db),
    idempotency: createEmbeddedIdempotencyStore(db),
    knowledgeStructures: createEmbeddedKnowledgeStructureStore(db),
    knowledgeObjects: createEmbeddedKnowledgeObjectStore(db),
    knowledgeSettings: createEmbeddedKnowledgeSettingsStore(db),
    retention: createEmbeddedRetentionStore(db),
    attemptCounters: createEmbeddedAttemptCounters(db),
    async ping() {
      db.prepare('SELECT 1').get();
    },
    async close() {
      await searchIndex.close();
      db.close();
    },
  };
}

/**
 * Files and a directory made before this version, or by hand, keep their mode (an operator may share
 * them on purpose), but whoever else can read them reads every tenant's data or can forge tokens.
 */
function warnAboutLooseModes(config: Config, logger: Logger): void {
  for (const p of [config.DATA_DIR, jwtSecretFile(config.DATA_DIR), ...embeddedDatabaseFiles(config.DATA_DIR)]) {
    const mode = looseMode(p);
    if (mode !== null)
      logger.warn({ path: p, mode: octal(mode) }, 'data directory or file is accessible to group or others; chmod go-rwx it');
  }
}

/** Creates or migrates the database file, then closes it. */
export function prepareEmbeddedStorage(config: Config): void {
  openEmbeddedDatabase(config.DATA_DIR).close();
}

/**
 * For `tenant-memory reindex`: forgets the stored vectors and records the configured model, so the
 * index opens again; the caller then rewrites every memory's index rows.
 */
export function resetEmbeddedSearchIndex(config: Config, embedding: IndexInfo): void {
  const db = openEmbeddedDatabase(config.DATA_DIR);
  try {
    resetIndexForModel(db, embedding);
  } finally {
    db.close();
  }
}
