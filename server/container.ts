import { createOpenIdClient } from '../adapters/identity/openid-client.js';
import { LlmContradictionDetector } from '../adapters/llm/contradiction-detector.js';
import { createJobQueue, type AgendaJobQueue } from '../jobs/agenda.js';
import type { JobServices } from '../jobs/context.js';
import { jobDefinitions } from '../jobs/definitions/index.js';
import { isLoopbackHostname, type Config } from './config.js';
import type { Logger } from './logger.js';
import type { StoragePorts } from './ports/index.js';
import type { ProfileStorage } from './profiles/profile-storage.js';
import { IncompleteReindexError } from './ports/search-index.js';
import type { ApiKeyAuthenticator, BearerAuthenticator } from './principal.js';
import { createEmbeddedPorts, prepareEmbeddedStorage, resetEmbeddedSearchIndex } from './profiles/embedded.js';
import { createMongoPorts, resetMongoSearchIndex } from './profiles/mongo.js';
import { apiKeyAuditSink, createApiKeyService, type ApiKeyService } from './services/api-keys.js';
import { createAuditService, type AuditService } from './services/audit.js';
import type { EnrichmentEngine } from './ports/enrichment-engine.js';
import { configuredEnrichmentEngines } from './enrichment-engines.js';
import { createEnrichmentService, type EnrichmentService } from './services/knowledge/enrichment.js';
import { createKnowledgeRefresh, type KnowledgeRefresh } from './services/knowledge/knowledge-refresh.js';
import { createKnowledgeService, type KnowledgeService } from './services/knowledge/knowledge-service.js';
import { createKnowledgeSettingsService, type KnowledgeSettingsService } from './services/knowledge/knowledge-settings.js';
import { createAuthService, type AuthService } from './services/auth.js';
import { createBreakGlassService, type BreakGlassService } from './services/break-glass.js';
import { systemClock, type Clock } from './services/clock.js';
import { createMaintenanceService, type MaintenanceService } from './services/maintenance.js';
import { createLoginThrottle, defaultThrottleLimits, type ThrottleLimits } from './services/login-throttle.js';
import { createAddressBudget, createKeyedBudget } from './services/address-budget.js';
import { createConsolidationService, type ConsolidationDeps, type ConsolidationService } from './services/memories/consolidation.js';
import { createConsolidationTrigger, type ConsolidationTrigger } from './services/memories/consolidation-trigger.js';
import { createEmbedder, type EmbedderConfig } from '../adapters/embeddings/index.js';
import { ThreadedEmbedder } from '../adapters/embeddings/threaded.js';
import { ThreadedWriteAnalyzer } from '../adapters/threads/write-analyzer.js';
import { inThreadWriteAnalyzer } from './services/memories/in-thread-write-analyzer.js';
import type { WriteAnalysisOptions } from './services/memories/write-analysis.js';
import type { Embedder } from './ports/embedder.js';
import { extractEntities } from './text/entities.js';
import { createCursorCodec } from './services/search/cursor.js';
import { createSearchService, type SearchService } from './services/search/search-service.js';
import { reindexAll } from './services/search/reindex.js';
import { createIndexOutboxService, type IndexOutboxService } from './services/search/index-outbox.js';
import { createMemoryService, type MemoryService } from './services/memories/memory-service.js';
import { createPasswordHasher, type Argon2Params, type PasswordHasher } from './services/passwords.js';
import { createSsoService, type SsoService } from './services/sso.js';
import { createMembersService, type MembersService } from './services/members.js';
import { createTenantsService, type TenantsService } from './services/tenants.js';
import type { TenantRecord, TenantStatus } from './ports/tenants.js';
import { createUsersService, type UsersService } from './services/users.js';
import { createUsageService, type UsageService } from './services/usage.js';
import { createPortalServices, type PortalServices } from './services/portal/portal-services.js';
import { createOnboardingService } from './services/onboarding.js';
import { batchedUsageStore } from './services/usage-batching.js';
import { createReadiness, type HealthReport } from './services/health.js';

/**
 * Everything procedures and jobs use, built once per process. Services see ports, never drivers:
 * this file and `profiles/` (the composition root) are the only code that knows the adapters.
 */
export interface Services {
  config: Config;
  logger: Logger;
  ports: StoragePorts;
  bearerAuth: BearerAuthenticator;
  apiKeyAuth: ApiKeyAuthenticator;
  /** The clock every service uses (injectable in tests). */
  clock: Clock;
  audit: AuditService;
  auth: AuthService;
  users: UsersService;
  tenants: TenantsService;
  /** Invitations, role changes and removal of members. */
  members: MembersService;
  breakGlass: BreakGlassService;
  /** OIDC single sign-on (POST /auth/sso/login, GET /auth/callback). */
  sso: SsoService;
  /** API key management; also the `apiKeyAuth` authenticator. */
  apiKeys: ApiKeyService;
  /**
   * Background jobs (Agenda over the profile's store): services enqueue with `jobs.now(...)`; the
   * workers run in this process when WORKER_MODE=inline, else in `tenant-memory worker`.
   */
  jobs: AgendaJobQueue<JobServices>;
  /** Purges of ended sessions, closed throttle windows and expired idempotency records (recurring jobs). */
  maintenance: MaintenanceService;
  /** The memory API: queued writes, reads, versions, rollback, delete, memory settings. */
  memories: MemoryService;
  /** The consolidation pipeline the `memory.consolidate-writes` job runs. */
  consolidation: ConsolidationService;
  /** When to enqueue `memory.consolidate-writes` (told of accepted writes and of drains). */
  consolidationTrigger: ConsolidationTrigger;
  /** Turns text into vectors for the index and queries (EMBEDDINGS_PROVIDER). */
  embedder: Embedder;
  /** GET /memories/search. */
  search: SearchService;
  /** The Knowledge API: structures and knowledge objects (`/v1/knowledge`). */
  knowledge: KnowledgeService;
  /** The tenant's Knowledge API settings (`/settings/knowledge`: web enrichment on or off). */
  knowledgeSettings: KnowledgeSettingsService;
  /** Knowledge enrichment: the trigger route and the `knowledge.enrich` job. */
  enrichment: EnrichmentService;
  /** Re-enrichment of knowledge objects newly consolidated memories name (`knowledge.refresh`). */
  knowledgeRefresh: KnowledgeRefresh;
  /** Index work waiting to reach the search index (server profile): the drain job, `/readyz`, `/metrics`. */
  indexOutbox: IndexOutboxService;
  /** Usage counters and plan limits (GET /usage, quotas, the search route's `recordSearch`). */
  usage: UsageService;
  /** The web portal's facade: cookie sessions, retention (`/api/portal`). */
  portal: PortalServices;
  /** The `maintenance.retention` job's pass (the portal's retention service). */
  retention: JobServices['retention'];
  health: { ready(): Promise<HealthReport> };
  close(): Promise<void>;
}

/** Knobs for tests and benchmarks; production uses the defaults. */
export interface ServiceOptions {
  clock?: Clock;
  argon2?: Argon2Params;
  /** The password hasher; default argon2id at `argon2` (tests wrap the real one to count its work). */
  passwords?: PasswordHasher;
  loginThrottle?: ThrottleLimits;
  /** Run job workers in this process. Default: WORKER_MODE === 'inline'. */
  workers?: boolean;
  /** The embedder; default from EMBEDDINGS_PROVIDER. */
  embedder?: Embedder;
  /** `tenant-memory reindex` itself: opens an index whose rebuild has not finished (anything else refuses it). */
  reindexing?: boolean;
  /**
   * Consolidation parts in place of the configured ones (CONSOLIDATION_THREADS, LLM_URL) and its batch
   * size. A given analyzer is the caller's to close.
   */
  consolidation?: Pick<ConsolidationDeps, 'analyzer' | 'contradictionDetector' | 'batchSize'>;
  /** The enrichment engines, given the configured ones in their order (tests add a stand-in of an outside engine). */
  enrichmentEngines?: (configured: EnrichmentEngine[]) => EnrichmentEngine[];
}

/**
 * The configured embedder; the full offline encoder (`use-lite`) runs in EMBEDDING_THREADS worker
 * threads unless `threads` is false. Whoever makes one closes it.
 */
export function embedderFor(config: Config, threads = true): Embedder {
  const embedderConfig: EmbedderConfig = {
    provider: config.EMBEDDINGS_PROVIDER,
    ...(config.EMBEDDINGS_URL ? { url: config.EMBEDDINGS_URL } : {}),
    ...(config.EMBEDDINGS_MODEL ? { model: config.EMBEDDINGS_MODEL } : {}),
    ...(config.EMBEDDINGS_API_KEY ? { apiKey: config.EMBEDDINGS_API_KEY } : {}),
  };
  if (threads && config.EMBEDDINGS_PROVIDER === 'use-lite' && config.EMBEDDING_THREADS > 0) {
    return new ThreadedEmbedder(embedderConfig, { threads: config.EMBEDDING_THREADS });
  }
  return createEmbedder(embedderConfig);
}

export async function createContainer(config: Config, logger: Logger, options: ServiceOptions = {}): Promise<Services> {
  const ownsEmbedder = options.embedder === undefined;
  const embedder = options.embedder ?? embedderFor(config);
  let ports: ProfileStorage;
  try {
    // An OpenAI-compatible service without a configured dimension reports it after its first answer.
    if (embedder.dimension === 0) await embedder.init();
    const embedding = { model: embedder.model, dimension: embedder.dimension };
    ports = config.STORAGE === 'mongo' ? await createMongoPorts(config, logger, embedder) : createEmbeddedPorts(config, logger, embedding);
    if (!options.reindexing && ports.searchIndex.reindexIncomplete()) {
      await ports.close().catch(() => undefined);
      throw new IncompleteReindexError();
    }
  } catch (err) {
    if (ownsEmbedder) await embedder.close?.().catch(() => undefined);
    throw err;
  }
  const built = buildServices(config, logger, ports, { ...options, embedder });
  // An embedder the container made is the container's to close (threads); a given one is the caller's.
  const services: Services = ownsEmbedder
    ? {
        ...built,
        close: async () => {
          await built.close();
          await embedder.close?.();
        },
      }
    : built;
  try {
    await services.jobs.ready();
    if (options.workers ?? config.WORKER_MODE === 'inline') {
      await services.jobs.start();
    }
  } catch (err) {
    await services.close().catch(() => undefined);
    throw err;
  }
  return services;
}

/**
 * Brings the store's schema up to date without starting anything, so processes started together
 * afterwards (`serve --processes N`) find it ready instead of racing to migrate it.
 */
export async function prepareStorage(config: Config): Promise<void> {
  if (config.STORAGE === 'embedded') prepareEmbeddedStorage(config);
}

/**
 * `tenant-memory reindex`, with the service stopped: resets the profile's index to the configured
 * embedding model, marked incomplete, then rewrites every memory's index rows from the memory store
 * and clears the mark. A run that fails or is stopped midway leaves the mark, so the service refuses
 * to start on a partial index until a run finishes.
 */
export async function reindexSearch(config: Config, logger: Logger, onProgress?: (done: number, total: number) => void) {
  const embedder = embedderFor(config);
  try {
    await embedder.init();
    const embedding = { model: embedder.model, dimension: embedder.dimension };
    if (config.STORAGE === 'mongo') await resetMongoSearchIndex(config, embedder);
    else resetEmbeddedSearchIndex(config, embedding);
    const services = await createContainer(config, logger, { workers: false, embedder, reindexing: true });
    try {
      // Every row is rebuilt from the memory store: older outbox entries (with the old model's vectors)
      // would only overwrite them.
      await services.indexOutbox.clearForReindex();
      const done = await reindexAll({
        tenants: services.ports.tenants,
        memories: services.ports.memories,
        index: services.ports.searchIndex,
        embedder,
        extractEntities,
        ...(onProgress ? { onProgress } : {}),
      });
      await services.ports.searchIndex.completeReindex();
      return done;
    } finally {
      await services.close();
    }
  } finally {
    await embedder.close?.();
  }
}

/**
 * `tenant-memory tenant suspend|resume <id>`: an operator's change of a tenant's status, recorded in
 * the tenant's audit log. Running services see it at their next request (the embedded profile's
 * tenant cache follows a signal file in DATA_DIR). Throws NOT_FOUND for an unknown tenant.
 */
export async function setTenantStatus(config: Config, logger: Logger, tenantId: string, status: TenantStatus): Promise<TenantRecord> {
  const services = await createContainer(config, logger, { workers: false });
  try {
    return await services.tenants.setStatus(tenantId, status, { ip: null, userAgent: null });
  } finally {
    await services.close();
  }
}

/**
 * `tenant-memory outbox status|retry` (server profile): the index outbox's counts, or its set-aside
 * entries (of one tenant, or all) put back and drained at once.
 */
export async function indexOutboxCommand(config: Config, logger: Logger, action: { retry: boolean; tenantId: string | null }) {
  const services = await createContainer(config, logger, { workers: false });
  try {
    const retried = action.retry ? await services.indexOutbox.retryPoisoned(action.tenantId) : null;
    return { enabled: services.indexOutbox.enabled, retried, counts: await services.indexOutbox.counts() };
  } finally {
    await services.close();
  }
}

/** Wires services over whichever storage ports the profile provided. */
export function buildServices(config: Config, logger: Logger, ports: ProfileStorage, options: ServiceOptions = {}): Services {
  const clock = options.clock ?? systemClock;
  // Callers that give no embedder get one without threads: the embedder's owner closes it, and this
  // function's caller did not make one.
  const embedder = options.embedder ?? embedderFor(config, false);
  const audit = createAuditService({ audit: ports.audit, logger, clock });
  const users = createUsersService({ users: ports.users, clock });
  const tenants = createTenantsService({ tenants: ports.tenants, audit, clock });
  const breakGlass = createBreakGlassService({ breakGlass: ports.breakGlass, audit, maxMinutes: config.BREAK_GLASS_MAX_MINUTES, clock });
  const auth = createAuthService({
    config,
    users: ports.users,
    tenants: ports.tenants,
    sessions: ports.sessions,
    stepUpTokens: ports.stepUpTokens,
    tenantsService: tenants,
    breakGlass,
    audit,
    passwords: options.passwords ?? createPasswordHasher(options.argon2),
    throttle: createLoginThrottle(options.loginThrottle ?? defaultThrottleLimits, ports.attemptCounters),
    signupBudget: createAddressBudget(
      { keyPrefix: 'signup_ip', perWindow: config.SIGNUP_RATE_LIMIT, windowSeconds: 3600, what: 'sign-ups' },
      ports.attemptCounters,
    ),
    logger,
    clock,
  });
  const sso = createSsoService({
    providers: config.OIDC_PROVIDERS.map((p) => ({
      id: p.id,
      issuer: p.issuer,
      clientId: p.client_id,
      clientSecret: p.client_secret,
      scopes: p.scopes,
      // loadConfig refused other http issuers unless OIDC_ALLOW_INSECURE_ISSUERS is set.
      allowInsecureRequests:
        new URL(p.issuer).protocol === 'http:' && (isLoopbackHostname(new URL(p.issuer).hostname) || config.OIDC_ALLOW_INSECURE_ISSUERS),
    })),
    oidc: createOpenIdClient(),
    states: ports.ssoStates,
    users,
    tenants,
    auth,
    audit,
    publicUrl: config.PUBLIC_URL,
    startBudget: createAddressBudget(
      { keyPrefix: 'sso_start_ip', perWindow: config.SSO_START_RATE_LIMIT, windowSeconds: 600, what: 'single sign-on starts' },
      ports.attemptCounters,
    ),
    clock,
  });
  // Ticked by the services that see the checklist's events (key created, write accepted, search answered).
  const onboarding = createOnboardingService({ store: ports.onboarding, audit, logger, clock });
  const apiKeys = createApiKeyService({
    onboarding: onboarding.observe,
    store: ports.apiKeys,
    tenants: ports.tenants,
    logger,
    audit: apiKeyAuditSink(audit, logger),
    clock,
  });
  const members = createMembersService({
    tenants: ports.tenants,
    users: ports.users,
    invitations: ports.invitations,
    audit,
    stepUp: auth,
    apiKeys,
    breakGlass,
    invitationBudgets: {
      perUser: createKeyedBudget(
        { keyPrefix: 'invite_user', perWindow: config.INVITATION_RATE_LIMIT, windowSeconds: 3600, what: 'invitations from this user' },
        ports.attemptCounters,
      ),
      perTenant: createKeyedBudget(
        {
          keyPrefix: 'invite_tenant',
          perWindow: config.INVITATION_TENANT_RATE_LIMIT,
          windowSeconds: 3600,
          what: 'invitations from this tenant',
        },
        ports.attemptCounters,
      ),
    },
    invitationTtlSeconds: config.INVITATION_TTL_SECONDS,
    clock,
  });
  const jobs = createJobQueue<JobServices>(ports.jobStore, { logger, context: () => services }).defineAll(jobDefinitions);
  // Reads and searches are counted in batches far from a plan's limit (see usage-batching.ts).
  const usageCounts = batchedUsageStore(ports.usage, {
    onError: (err) => logger.warn({ err }, 'usage counts could not be written; they are kept for the next flush'),
  });
  const usage = createUsageService({
    store: usageCounts,
    limits: config.PLAN_LIMITS,
    planName: async (tenantId) => (await ports.tenants.get(tenantId))?.plan ?? null,
    clock,
  });
  const consolidationTrigger = createConsolidationTrigger(() => jobs, logger, clock);
  const memories = createMemoryService({
    memories: ports.memories,
    queue: ports.writeQueue,
    usage,
    clock,
    contentMaxBytes: config.MEMORY_CONTENT_MAX_BYTES,
    consolidationTrigger,
    audit,
    onboarding: onboarding.observe,
  });
  // Facts are extracted ahead of need only on a thread: in line, the detector extracts them on demand.
  const analysis: WriteAnalysisOptions = {
    quality: config.MEMORY_QUALITY_SCORER,
    entities: true,
    offlineFacts: !config.LLM_URL && config.CONSOLIDATION_THREADS > 0,
  };
  // Threads start on the first consolidation; services.close() ends them.
  const ownAnalyzer = options.consolidation?.analyzer
    ? null
    : config.CONSOLIDATION_THREADS > 0
      ? new ThreadedWriteAnalyzer(analysis, config.CONSOLIDATION_THREADS)
      : inThreadWriteAnalyzer(analysis);
  const analyzer = options.consolidation?.analyzer ?? ownAnalyzer;
  const maintenance = createMaintenanceService({
    sessions: ports.sessions,
    attemptCounters: ports.attemptCounters,
    idempotency: ports.idempotency,
    clock,
  });
  const indexOutbox = createIndexOutboxService({ outbox: ports.indexOutbox, logger, clock });
  const search = createSearchService({
    index: ports.searchIndex,
    embedder,
    memories,
    usage,
    cursors: createCursorCodec(config.jwtSecret),
    logger,
    onboarding: onboarding.observe,
  });
  const knowledge = createKnowledgeService({
    structures: ports.knowledgeStructures,
    objects: ports.knowledgeObjects,
    audit,
    usage,
    clock,
  });
  const knowledgeSettings = createKnowledgeSettingsService({ settings: ports.knowledgeSettings, audit, clock });
  const configuredEngines = configuredEnrichmentEngines(config, ports);
  const enrichment = createEnrichmentService({
    objects: ports.knowledgeObjects,
    catalog: knowledge.catalog,
    engines: (options.enrichmentEngines ?? ((configured) => configured))(configuredEngines.engines),
    scheduler: () => jobs,
    usage,
    clock,
  });
  const knowledgeRefresh = createKnowledgeRefresh({
    objects: ports.knowledgeObjects,
    enrichment,
    scheduler: () => jobs,
    delayMs: config.KNOWLEDGE_REFRESH_DELAY_MS,
    maxWaitMs: config.KNOWLEDGE_REFRESH_MAX_WAIT_MS,
    clock,
  });
  const consolidation = createConsolidationService({
    memories: ports.memories,
    queue: ports.writeQueue,
    clock,
    logger,
    embedder,
    analyzer,
    consolidationTrigger,
    knowledgeRefresh,
    contradictionDetector:
      options.consolidation?.contradictionDetector ??
      (config.LLM_URL
        ? new LlmContradictionDetector({ url: config.LLM_URL, model: config.LLM_MODEL ?? 'gpt-4o-mini', apiKey: config.LLM_API_KEY })
        : null),
    ...(options.consolidation?.batchSize !== undefined ? { batchSize: options.consolidation.batchSize } : {}),
  });
  const portal = createPortalServices({ config, ports, audit, clock, usage, onboarding });
  const services: Services = {
    embedder,
    search,
    knowledge,
    knowledgeSettings,
    enrichment,
    knowledgeRefresh,
    indexOutbox,
    config,
    logger,
    ports,
    jobs,
    memories,
    consolidation,
    consolidationTrigger,
    maintenance,
    usage,
    bearerAuth: auth,
    clock,
    audit,
    auth,
    users,
    tenants,
    members,
    breakGlass,
    sso,
    apiKeyAuth: apiKeys,
    apiKeys,
    portal,
    retention: portal.retention,
    health: createReadiness(ports, indexOutbox),
    close: async () => {
      await jobs.stop(); // running jobs finish before the stores close
      await configuredEngines.close();
      await ownAnalyzer?.close?.();
      await apiKeys.close(); // writes pending last_used_at values
      await usageCounts.close(); // writes pending read and search counts (failures are logged, not thrown)
      await ports.close();
    },
  };
  return services;
}
