/**
 * Storage port of the memory aggregate: memory records, their versions, the tenant's memory settings
 * and the atomic commit of a consolidation batch. Every method takes `tenantId` first; a record of
 * another tenant is simply not found.
 *
 * A memory row has two layers:
 *  - the HEAD: what the last accepted write said (title, content, tags, type, agent, metadata,
 *    writer's sensitivity) and `version`, the version number that write reserved. Reads show it at
 *    once (read-your-writes), `dirty` while queued writes are not yet consolidated;
 *  - the CONSOLIDATED state: `committedVersion` (the last version the pipeline committed; 0 before
 *    the first) and what the pipeline derived (status, effective sensitivity, injection screening,
 *    contradiction state, quality). The search index only ever holds consolidated versions.
 *
 * Version numbers are reserved when a write is accepted, so they are contiguous 1..n per memory and
 * a writer's `If-Match` compares against the version it saw. Versions the pipeline appends on its own
 * (a `supersede` of an older conflicting memory) are only appended to memories with nothing queued.
 */
import type { IndexedMemory, MemoryStatus } from './search-index.js';

export type { MemoryStatus } from './search-index.js';

export const MEMORY_TYPES = ['episodic', 'semantic', 'procedural'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const SENSITIVITIES = ['low', 'medium', 'high'] as const;
export type Sensitivity = (typeof SENSITIVITIES)[number];

export const MEMORY_STATUSES = ['active', 'archived', 'superseded'] as const satisfies readonly MemoryStatus[];

export const CONTRADICTION_STATUSES = ['clear', 'flagged', 'resolved'] as const;
export type ContradictionStatus = (typeof CONTRADICTION_STATUSES)[number];

export const CONTRADICTION_POLICIES = ['NEWER_WINS', 'FLAG'] as const;
export type ContradictionPolicy = (typeof CONTRADICTION_POLICIES)[number];

export const VERSION_CHANGES = ['create', 'update', 'rollback', 'supersede'] as const;
export type VersionChange = (typeof VERSION_CHANGES)[number];

export type JsonPrimitive = string | number | boolean | null;
/** Flat JSON object supplied by the writer (`metadata`, docs/decisions.md#memory-writes). */
export type MemoryMetadata = Record<string, JsonPrimitive>;

/** What a writer supplies for a memory (create, update) and what a version snapshots. */
export interface MemoryContent {
  title: string;
  content: string;
  tags: string[];
  type: MemoryType;
  agentId: string | null;
  metadata: MemoryMetadata;
  /** The writer's explicit sensitivity, or null when the writer gave none. */
  writerSensitivity: Sensitivity | null;
}

/** The part of a memory an injection finding came from (`across-fields`: only the parts read together). */
export const SCREENED_FIELDS = ['title', 'content', 'tags', 'metadata', 'agent_id', 'across-fields'] as const;
export type ScreenedField = (typeof SCREENED_FIELDS)[number];

/** One named pattern the injection screen found. */
export interface InjectionFinding {
  id: string;
  category: string;
  /** Where it was found; absent on memories consolidated before every field was screened. */
  field?: ScreenedField;
  /** Short excerpt of the text that matched (≤ 80 characters), or a description. */
  evidence: string;
  weight: number;
}

/** What the consolidation pipeline derives for a version. */
export interface DerivedState {
  status: MemoryStatus;
  /** Effective sensitivity: max(writer's choice, detected). */
  sensitivity: Sensitivity;
  sensitivityReasons: string[];
  injectionFlagged: boolean;
  injectionScore: number;
  injectionPatterns: InjectionFinding[];
  quality: number;
  contradictionStatus: ContradictionStatus;
  /** The policy in force when the contradiction state was last decided, or null when never. */
  contradictionPolicy: ContradictionPolicy | null;
  /** Memories this one conflicts with (flagged or resolved). */
  conflictsWith: string[];
  supersededBy: string | null;
  /** Set when this memory was a duplicate merged into another one (then status is `archived`). */
  mergedInto: string | null;
  /** `contentFingerprint` of the consolidated content (exact-duplicate lookup). */
  fingerprint: string;
  /** Subject keys of the consolidated content (same-subject candidate lookup). */
  subjects: string[];
}

export interface MemoryRecord extends MemoryContent, Omit<DerivedState, 'fingerprint' | 'subjects'> {
  id: string;
  tenantId: string;
  namespace: string;
  /** HEAD version: reserved by the last accepted write. */
  version: number;
  /** Last version committed by the pipeline (0 before the first consolidation). */
  committedVersion: number;
  /** Accepted writes not yet consolidated. */
  pendingCount: number;
  /** Bytes counted against the tenant's storage (UTF-8 of title, content, tags and metadata). */
  sizeBytes: number;
  /** RFC 3339. */
  createdAt: string;
  updatedAt: string;
}

/** What a search hit needs of a memory: who may see it, which version is committed, what it shows. */
export type MemoryHitRecord = Pick<
  MemoryRecord,
  | 'id'
  | 'namespace'
  | 'agentId'
  | 'title'
  | 'content'
  | 'tags'
  | 'metadata'
  | 'version'
  | 'committedVersion'
  | 'createdAt'
  | 'injectionFlagged'
>;

export interface MemoryVersionRecord extends Omit<MemoryContent, 'writerSensitivity'> {
  memoryId: string;
  version: number;
  change: VersionChange;
  /** Effective sensitivity of this version. */
  sensitivity: Sensitivity;
  status: MemoryStatus;
  /** For `rollback` versions, the version rolled back to. */
  rolledBackTo: number | null;
  createdAt: string;
}

export interface MemoryListQuery {
  /** Namespaces to list; null means every namespace. An empty array lists nothing. */
  namespaces: readonly string[] | null;
  /** Case-insensitive substring of title or content. */
  text?: string;
  type?: MemoryType;
  sensitivity?: Sensitivity;
  status?: MemoryStatus;
  contradiction?: ContradictionStatus;
  /** created_at ≥ from (RFC 3339). */
  from?: string;
  /** created_at ≤ to (RFC 3339). */
  to?: string;
  /**
   * Duplicates merged into another memory are left out unless this is true (the service sets it when
   * the caller filters on `status: archived`).
   */
  includeMerged?: boolean;
  limit: number;
  offset: number;
}

/** What a list query selects, without its page: what counting and bulk deletion take. */
export type MemoryFilterQuery = Omit<MemoryListQuery, 'limit' | 'offset'>;

/** A memory's place in the newest-first order (created_at, then id): where a keyset page starts after. */
export interface MemoryOrderKey {
  createdAt: string;
  id: string;
}

export interface MemoryPage {
  /** Newest first (created_at, then id). */
  items: MemoryRecord[];
  total: number;
}

export interface CandidateQuery {
  namespace: string;
  /** Exact-duplicate lookup. */
  fingerprint?: string;
  /** Same-subject lookup. */
  subjects?: readonly string[];
  /** Ids never returned (the memory being consolidated). */
  excludeIds?: readonly string[];
  /** Most candidates returned (most recently committed first). */
  limit: number;
}

/** What candidate lookups return: enough to compare texts; load the full record to act on one. */
export interface MemoryCandidate {
  id: string;
  namespace: string;
  title: string;
  content: string;
  tags: string[];
  type: MemoryType;
  agentId: string | null;
  committedVersion: number;
  injectionFlagged: boolean;
  /** `contentFingerprint` of the content. */
  fingerprint: string | null;
}

/** The contents of a new version (the memory id and number come from the enclosing operation). */
export type VersionSnapshot = Omit<MemoryVersionRecord, 'memoryId' | 'version'>;

/**
 * Applies one queued write: deletes it from the queue (its "applied" mark), inserts its version and
 * moves the memory's consolidated state forward. Guards: the write is still queued, the memory's
 * `committedVersion` is `version - 1`; the version is unique per memory.
 */
export interface ApplyWriteOp {
  kind: 'apply';
  writeId: number;
  memoryId: string;
  namespace: string;
  version: number;
  snapshot: VersionSnapshot;
  derived: DerivedState;
  /**
   * Storage accounting delta for the tenant (e.g. a duplicate merged away stops counting:
   * memories −1, bytes −size).
   */
  usage?: { memories: number; bytes: number };
}

/**
 * A change the pipeline makes to ANOTHER memory (the older side of a contradiction). Guards: the
 * memory has nothing queued and its `committedVersion` is `expectCommittedVersion`. With a snapshot,
 * a new version `expectCommittedVersion + 1` is appended (change `supersede`) and head and committed
 * version both move to it.
 */
export interface UpdateMemoryOp {
  kind: 'update';
  memoryId: string;
  expectCommittedVersion: number;
  snapshot: VersionSnapshot | null;
  set: Pick<DerivedState, 'status' | 'contradictionStatus' | 'contradictionPolicy' | 'conflictsWith' | 'supersededBy'>;
}

export type ConsolidationOp = ApplyWriteOp | UpdateMemoryOp;

/** One batch's effects, committed atomically (all or nothing). */
export interface ConsolidationPlan {
  ops: ConsolidationOp[];
  /** Search index rows to write (consolidated state of every memory whose indexed view changed). */
  indexUpserts: IndexedMemory[];
  /** Memories whose index rows must go (merged duplicates, anything no longer searchable). */
  indexRemovals: string[];
  /** RFC 3339 commit time (updated_at of every touched memory). */
  at: string;
}

/** A guard of the plan failed: something changed since the plan was made. Nothing was committed. */
export class ConsolidationConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConsolidationConflictError';
  }
}

export interface MemorySettings {
  contradictionPolicy: ContradictionPolicy;
  updatedAt: string | null;
}

export const DEFAULT_MEMORY_SETTINGS: MemorySettings = { contradictionPolicy: 'NEWER_WINS', updatedAt: null };

export interface MemoryStore {
  get(tenantId: string, memoryId: string): Promise<MemoryRecord | null>;
  /** The memories of the tenant among `memoryIds` (unknown ids are left out; order not guaranteed). */
  getMany(tenantId: string, memoryIds: readonly string[]): Promise<MemoryRecord[]>;
  /**
   * As `getMany`, only the fields a search result shows and resolves with (every search reads ten or so:
   * the full record's other columns were half the cost of the read in the embedded profile).
   */
  getHits(tenantId: string, memoryIds: readonly string[]): Promise<MemoryHitRecord[]>;
  list(tenantId: string, query: MemoryListQuery): Promise<MemoryPage>;
  /** How many memories `list` would total for the same filters, without reading a page. */
  count(tenantId: string, query: MemoryFilterQuery): Promise<number>;
  /**
   * Ids of up to `limit` memories the filters select, newest first: one batch of a bulk deletion
   * (ids only, so a batch never reads a thousand contents it is about to delete).
   */
  matchingIds(tenantId: string, query: MemoryFilterQuery, limit: number): Promise<string[]>;
  /**
   * The tenant's memories newest first (created_at, then id) after `after`, merged duplicates left out,
   * no total: keyset paging, so each page is one range of the (tenant, created_at, id) index however
   * deep it starts (`tenant-memory reindex` walks every memory so, where `offset` would skip ever more).
   * `includeMerged`: merged duplicates too (the portal's export of everything the tenant stored).
   */
  listAfter(tenantId: string, after: MemoryOrderKey | null, limit: number, options?: { includeMerged?: boolean }): Promise<MemoryRecord[]>;
  /** Every committed version, oldest first; empty when the memory does not exist. */
  listVersions(tenantId: string, memoryId: string): Promise<MemoryVersionRecord[]>;
  getVersion(tenantId: string, memoryId: string, version: number): Promise<MemoryVersionRecord | null>;
  /**
   * Deletes the memory at once and for good: its row, every version, its queued writes and its
   * search index rows, and adjusts the tenant's storage accounting. False when not found.
   */
  delete(tenantId: string, memoryId: string): Promise<boolean>;
  /**
   * Consolidated, active, non-merged memories with nothing queued, in one namespace, matching the
   * fingerprint or sharing a subject key. Index lookups only, never a scan of the tenant.
   */
  findCandidates(tenantId: string, query: CandidateQuery): Promise<MemoryCandidate[]>;
  /** Commits a consolidation plan atomically; throws ConsolidationConflictError when a guard fails. */
  commitConsolidation(tenantId: string, plan: ConsolidationPlan): Promise<void>;
  getSettings(tenantId: string): Promise<MemorySettings>;
  putSettings(tenantId: string, settings: { contradictionPolicy: ContradictionPolicy }, at: string): Promise<MemorySettings>;
}
