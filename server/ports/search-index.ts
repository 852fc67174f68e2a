/**
 * The search index port: keyword (BM25), dense-vector and entity-graph retrieval over one tenant's
 * memories. Every method takes `tenantId`; no call can see another tenant's documents.
 *
 * The index holds a denormalised copy of what retrieval needs (text, filters, vector, entities). The
 * memory store stays the source of truth: it writes index rows when a version becomes current and
 * removes them when a memory is deleted. A removed memory never comes back from any channel.
 */

export type MemoryStatus = 'active' | 'archived' | 'superseded';

export type SearchMode = 'vector-only' | 'hybrid' | 'hybrid+graph';

export const SEARCH_MODES: readonly SearchMode[] = ['vector-only', 'hybrid', 'hybrid+graph'];

export type EntityType = 'person' | 'place' | 'organization' | 'thing' | 'date';

/** One entity mentioned by a text, as produced by `server/text/entities.ts`. */
export interface ExtractedEntity {
  /** Normalised identity (lower case, singular, no possessive); equal keys are the same entity. */
  key: string;
  /** Surface form as first seen, for display. */
  name: string;
  type: EntityType;
}

/** What the index stores about one memory (its current version). */
export interface IndexedMemory {
  memoryId: string;
  namespace: string;
  agentId: string | null;
  title: string;
  content: string;
  tags: string[];
  status: MemoryStatus;
  injectionFlagged: boolean;
  /** 0..1; used by the soft `minQuality` filter. */
  quality: number;
  /** RFC 3339. */
  createdAt: string;
  /** Embedding of title + content by the index's configured model, or null when none is available. */
  vector: Float32Array | null;
  entities: ExtractedEntity[];
  /**
   * The memory's committed version this row shows. An index that can be written by more than one
   * process (Qdrant) never lets a row of a lower version replace one of a higher version: a drain that
   * outlived its lease cannot put back what another process already overwrote. Absent on rows queued
   * by an earlier release (written unfenced).
   */
  committedVersion?: number;
}

/**
 * One change to a tenant's index rows. A list of them means what applying them one by one, in order,
 * would do; `netIndexChanges` (server/services/search/index-changes.ts) says what that is.
 */
export type IndexChange = { op: 'upsert'; doc: IndexedMemory } | ({ op: 'remove' } & IndexRemoval);

/**
 * A memory leaving the index for good (deleted, or merged into another). `committedVersion`: its
 * committed version when it left; an index written by more than one process (Qdrant) keeps a marker
 * so that a late row of that version or an older one cannot bring the memory back.
 */
export interface IndexRemoval {
  memoryId: string;
  committedVersion?: number;
}

/** A search's request filters; `resolveSearchFilter` (server/services/search/filter-policy.ts) says what they mean. */
export interface SearchFilters {
  /** Namespaces to search; null means every namespace of the tenant. An empty array matches nothing. */
  namespaces: string[] | null;
  /** Only memories written by this agent. */
  agentId?: string;
  /** Superseded versions are excluded unless this is true. */
  includeSuperseded?: boolean;
  /** Memories flagged as prompt-injection attempts are excluded unless this is true. */
  includeFlagged?: boolean;
  /**
   * Soft quality threshold (0..1). Results below it are NOT dropped: they are ranked after every
   * result that meets it (each group keeps its relevance order), so a low-quality exact answer still
   * appears when nothing better exists.
   */
  minQuality?: number;
}

export interface SearchQuery {
  text: string;
  /** Query embedding by the index's model; required for modes that use the dense channel. */
  vector: Float32Array | null;
  mode: SearchMode;
  limit: number;
  /** Results to skip (pagination); default 0. */
  offset?: number;
  filters: SearchFilters;
}

export interface SearchHit {
  memoryId: string;
  /** Fused relevance, higher is better; comparable only within one response. */
  score: number;
}

export interface SearchResult {
  hits: SearchHit[];
  /**
   * Number of distinct matching candidates the channels produced for this query (before offset and
   * limit). Each channel contributes at most its candidate depth, so this is a lower bound of all
   * matches in very large tenants.
   */
  total: number;
}

export interface IndexInfo {
  model: string;
  dimension: number;
}

/** Raised when the index was built with another embedding model or dimension than configured. */
export class EmbeddingModelMismatchError extends Error {
  constructor(recorded: IndexInfo, configured: IndexInfo) {
    super(
      `the search index was built with embedding model "${recorded.model}" (${recorded.dimension} dimensions) ` +
        `but the configured model is "${configured.model}" (${configured.dimension} dimensions); ` +
        'vectors of different models cannot be compared. Run `tenant-memory reindex` to rebuild the index ' +
        'with the configured model, or configure the recorded model again.',
    );
    this.name = 'EmbeddingModelMismatchError';
  }
}

/**
 * Raised on start-up when a `tenant-memory reindex` reset the index and did not finish (it failed or
 * was stopped): the index then holds vectors for only some memories, and searches would miss the rest
 * without saying so.
 */
export class IncompleteReindexError extends Error {
  constructor() {
    super(
      'a `tenant-memory reindex` started on this search index did not finish, so the index holds only part ' +
        'of the memories; run `tenant-memory reindex` again (memories themselves are intact).',
    );
    this.name = 'IncompleteReindexError';
  }
}

/**
 * Raised on start-up when the search index was written in a layout this version no longer reads (the
 * Qdrant collection of an older version, whose keyword statistics spanned every tenant): the memories
 * are intact, and `tenant-memory reindex` rebuilds the index from them.
 */
export class SearchIndexLayoutError extends Error {
  constructor(detail: string) {
    super(
      `the search index was written by an older version of this service and cannot be read as it is (${detail}); ` +
        'run `tenant-memory reindex` to rebuild it from the stored memories (memories themselves are intact).',
    );
    this.name = 'SearchIndexLayoutError';
  }
}

/**
 * A failure of the index's deployment rather than of one request's content: credentials it no longer
 * accepts (401/403), nothing serving its API at the configured address (404 without its answer), or a
 * request size limit before it (413). Every write fails alike until an operator fixes it, so the index
 * outbox treats it as an outage: it never counts against an entry.
 */
export class SearchIndexConfigurationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SearchIndexConfigurationError';
  }
}

export interface SearchIndex {
  /** The embedding model and dimension this index was built with (recorded on first use). */
  indexInfo(): IndexInfo;
  /** True from the moment `tenant-memory reindex` reset this index until it called `completeReindex`. */
  reindexIncomplete(): boolean;
  /** Called by `tenant-memory reindex` once every memory's rows were written again. */
  completeReindex(): Promise<void>;
  /** Inserts or replaces the index rows of one memory. */
  upsert(tenantId: string, doc: IndexedMemory): Promise<void>;
  /** Removes every index row of one memory; a no-op when absent. */
  remove(tenantId: string, memoryId: string): Promise<void>;
  /**
   * Applies many changes of one tenant at once, with the effect of applying them one by one in order
   * (the last change of a memory wins): the index outbox's batches and `tenant-memory reindex`.
   */
  applyChanges(tenantId: string, changes: readonly IndexChange[]): Promise<void>;
  /** Removes every index row of one tenant (tenant deletion). */
  removeTenant(tenantId: string): Promise<void>;
  search(tenantId: string, query: SearchQuery): Promise<SearchResult>;
  close?(): Promise<void>;
}
