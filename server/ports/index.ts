import type { ApiKeyStore } from './api-keys.js';
import type { InvitationStore } from './invitations.js';
import type { AuditStore } from './audit.js';
import type { BreakGlassStore } from './break-glass.js';
import type { SessionStore } from './sessions.js';
import type { SsoStateStore } from './sso-state.js';
import type { StepUpTokenStore } from './step-up.js';
import type { TenantStore } from './tenants.js';
import type { UserStore } from './users.js';
import type { IdempotencyStore } from './idempotency.js';
import type { MemoryStore } from './memories.js';
import type { UsageStore } from './usage.js';
import type { OnboardingStore } from './onboarding.js';
import type { WriteQueue } from './write-queue.js';
import type { SearchIndex } from './search-index.js';
import type { AttemptCounters } from './attempt-counters.js';
import type { IndexOutbox } from './index-outbox.js';
import type { KnowledgeObjectStore, KnowledgeStructureStore } from './knowledge.js';
import type { KnowledgeSettingsStore } from './knowledge-settings.js';
import type { RetentionStore } from './retention.js';

/**
 * The storage ports of every aggregate, as one bundle a profile provides. Each port lives in its
 * own file; tenant-scoped methods take `tenantId` first so cross-tenant access cannot be expressed.
 */
export interface StoragePorts {
  users: UserStore;
  tenants: TenantStore;
  sessions: SessionStore;
  stepUpTokens: StepUpTokenStore;
  breakGlass: BreakGlassStore;
  /** Invitations to join a tenant (POST /auth/members, /auth/invitations). */
  invitations: InvitationStore;
  audit: AuditStore;
  apiKeys: ApiKeyStore;
  /** Pending SSO logins (state, nonce, PKCE verifier) between /auth/sso/login and /auth/callback. */
  ssoStates: SsoStateStore;
  /** Memory records, versions, memory settings and the consolidation commit. */
  memories: MemoryStore;
  /** The durable queue of accepted memory writes (atomic accept: row, queue, idempotency, usage, quota). */
  writeQueue: WriteQueue;
  /** Per-tenant usage counters and totals. */
  usage: UsageStore;
  /** Each tenant's onboarding checklist (the portal's dashboard and `/api/portal/onboarding`). */
  onboarding: OnboardingStore;
  /** Idempotency-Key records (the write queue shares them). */
  idempotency: IdempotencyStore;
  /** Keyword, dense and graph retrieval over consolidated memories (embedded index or Qdrant). */
  searchIndex: SearchIndex;
  /** Index work waiting to reach the search index; null where index rows commit with the memory (embedded). */
  indexOutbox: IndexOutbox | null;
  /** Knowledge structures (schemas) a tenant published (issue #23). */
  knowledgeStructures: KnowledgeStructureStore;
  /** Knowledge objects and their enrichment log; objects count toward the tenant's stored bytes. */
  knowledgeObjects: KnowledgeObjectStore;
  /** Per-tenant Knowledge API settings (which outside engines the tenant opted into). */
  knowledgeSettings: KnowledgeSettingsStore;
  /** Per-tenant retention settings and the superseded-version purge (`/api/portal/retention`). */
  retention: RetentionStore;
  /** Windowed attempt counters (the login throttle), shared by every process on the store. */
  attemptCounters: AttemptCounters;
  /** Cheap round trip to the backing store, for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
