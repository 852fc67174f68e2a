import type { EnrichmentOutcome, FieldValue, JsonValue, LogEngine, ObjectStatus, StructureStatus } from '../services/knowledge/model.js';

/**
 * Storage ports of the Knowledge API (issue #23): the structures (schemas) a tenant published, its
 * knowledge objects, and each object's enrichment log. Every method takes `tenantId`; another
 * tenant's ids read as absent. The rules (validation, completeness, status, what a run writes) live in
 * `server/services/knowledge/`; these ports store what they decided, atomically where it says so.
 * Built-in structures are not stored: the service serves them (`builtin-structures.ts`).
 */

/** A structure version a tenant published (spec: `ks_id`, `ks_type`, `schema_version`). */
export interface StructureRecord {
  /** `ks_id`: a UUID. */
  id: string;
  tenantId: string;
  type: string;
  version: string;
  status: StructureStatus;
  /** The JSON Schema object as published (with its `x-knowledge` annotations). */
  schema: { [key: string]: JsonValue };
  createdAt: string;
  activatedAt: string | null;
}

export type SaveDraftResult = 'created' | 'replaced' | 'not_draft';

export interface KnowledgeStructureStore {
  /** The tenant's published versions of `type`, oldest first. */
  list(tenantId: string, type: string): Promise<StructureRecord[]>;
  /** The types the tenant published any version of, in name order (the portal's type list; built-ins are added by the service). */
  types(tenantId: string): Promise<string[]>;
  get(tenantId: string, type: string, version: string): Promise<StructureRecord | null>;
  /**
   * Stores a DRAFT: inserts it, or replaces the schema of the same (type, version) while it is still a
   * DRAFT (keeping its id and createdAt); `not_draft` when that version is ACTIVE or DEPRECATED.
   * The service checks, before, that no object uses it.
   */
  saveDraft(record: StructureRecord): Promise<SaveDraftResult>;
  /**
   * Makes `version` the ACTIVE one of its type and every other ACTIVE version of the type DEPRECATED,
   * in one transaction, if the stored ACTIVE version is still `expectedActive` (null: none stored, the
   * type's built-in or nothing) — the one the caller checked compatibility against — or already
   * `version`. `not_found` when the version does not exist; `changed` (nothing written) when another
   * activation came first.
   */
  activate(tenantId: string, type: string, version: string, at: string, expectedActive: string | null): Promise<ActivateResult>;
}

export type ActivateResult = 'ok' | 'not_found' | 'changed';

/** A knowledge object as stored. `revision` grows by one with every write (optimistic concurrency). */
export interface KnowledgeObjectRecord {
  id: string;
  tenantId: string;
  type: string;
  /** The structure it is bound to: `ks_id` and `schema_version`. */
  structureId: string;
  schemaVersion: string;
  status: ObjectStatus;
  completenessScore: number;
  doNotEnrich: boolean;
  fields: Record<string, FieldValue>;
  /**
   * Normalised identity (the identity fields' values, normalised and joined), so engines and the
   * relation traversal find an object by name; '' when an identity field is empty.
   */
  identityKey: string;
  /** When an enrichment run last finished on the object; null until one has (the status rule needs it). */
  enrichedAt: string | null;
  /** The run holding the object (status ENRICHING), and since when; null when none. */
  enrichment: { runId: string; since: string } | null;
  /** Bytes the object counts toward the tenant's storage (its fields as JSON, UTF-8). */
  sizeBytes: number;
  revision: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * Where a list page starts: after this object in the list's order. The order is (completenessScore,
 * createdAt, id) when the list filters on `completenessLt`, else (createdAt, id); both ascending.
 */
export interface ObjectListCursor {
  completenessScore?: number;
  createdAt: string;
  id: string;
}

export interface ObjectListQuery {
  limit: number;
  /** Only objects whose score is below this. */
  completenessLt?: number;
  status?: ObjectStatus;
  after?: ObjectListCursor;
  /**
   * Objects to skip, in the list's order, after the cursor if one is given: the portal pages by offset
   * (the spec's `limit`/`offset`), the REST route by cursor.
   */
  offset?: number;
}

export interface ObjectListPage {
  objects: KnowledgeObjectRecord[];
  /** Objects of the type matching the filters (not only this page). */
  total: number;
}

/** One attempt of one engine's strategy on one field (spec: enrichment log entry). Append-only. */
export interface EnrichmentLogRecord {
  id: string;
  tenantId: string;
  objectId: string;
  runId: string;
  engine: LogEngine;
  field: string;
  strategy: string;
  candidateValue: JsonValue | null;
  confidence: number | null;
  outcome: EnrichmentOutcome;
  sourceRefs: string[];
  previousValue: JsonValue | null;
  createdAt: string;
}

/** Which part of an object's log to read (see `KnowledgeObjectStore.log`). */
export interface LogPageQuery {
  /** The id of the last entry of the previous page; null for the first page. */
  after: string | null;
  /** Only the entries of this enrichment run (or migration); null for every run. */
  runId: string | null;
  limit: number;
}

/** The storage limit a write must keep (the tenant's plan; null = unlimited). */
export interface StorageQuota {
  storageBytes: number | null;
}

export type ObjectWriteResult = 'ok' | 'conflict' | 'not_found' | 'quota_exceeded';

/** What a re-enrichment after consolidation needs to know of an object a memory names. */
export interface IdentityMatch {
  id: string;
  type: string;
  identityKey: string;
  doNotEnrich: boolean;
  enrichment: { runId: string; since: string } | null;
}

export interface KnowledgeObjectStore {
  /**
   * Inserts the object and adds its `sizeBytes` to the tenant's storage total, in one transaction;
   * `quota_exceeded` (nothing written) when the total would pass the quota.
   */
  create(record: KnowledgeObjectRecord, quota: StorageQuota): Promise<'ok' | 'quota_exceeded'>;
  get(tenantId: string, id: string): Promise<KnowledgeObjectRecord | null>;
  list(tenantId: string, type: string, query: ObjectListQuery): Promise<ObjectListPage>;
  /** Live objects per type of the tenant (types without objects are absent), read from the list counts. */
  countByType(tenantId: string): Promise<Record<string, number>>;
  /**
   * Replaces the object with `next` if it is still at `expectRevision` (next.revision must be
   * expectRevision + 1), moves the tenant's storage total by the size difference (`quota_exceeded`
   * when it grows past the quota) and appends `log` — all in one transaction: a run's field values
   * and its log entries are written together or not at all.
   */
  update(
    next: KnowledgeObjectRecord,
    expectRevision: number,
    quota: StorageQuota,
    log?: readonly EnrichmentLogRecord[],
  ): Promise<ObjectWriteResult>;
  /** Removes the object, its log, and its size from the storage total; the removed record, or null. */
  delete(tenantId: string, id: string): Promise<KnowledgeObjectRecord | null>;
  /** Objects of `type` whose `identityKey` is this one (at most `limit`, oldest first). */
  findByIdentity(tenantId: string, type: string, identityKey: string, limit: number): Promise<KnowledgeObjectRecord[]>;
  /**
   * Objects of any type whose `identityKey` is one of `identityKeys` (at most `limit`, in id order): one
   * indexed look-up per consolidated batch, whatever the number of names its memories mention.
   */
  findByIdentityKeys(tenantId: string, identityKeys: readonly string[], limit: number): Promise<IdentityMatch[]>;
  /** Whether any object of the tenant is bound to this structure version (a used version is immutable). */
  usesVersion(tenantId: string, type: string, version: string): Promise<boolean>;
  /** Objects of `type` bound to a version other than `version`, in id order after `afterId` (a migration's pages). */
  listNotAtVersion(
    tenantId: string,
    type: string,
    version: string,
    afterId: string | null,
    limit: number,
  ): Promise<KnowledgeObjectRecord[]>;
  /**
   * Every object of the tenant, of every type, in (type, id) order strictly after `after` (null: from the
   * first), at most `limit`: keyset pages of the (tenant, type, id) index, for a whole-tenant export.
   */
  listAll(tenantId: string, after: { type: string; id: string } | null, limit: number): Promise<KnowledgeObjectRecord[]>;
  /**
   * One page of the object's log, oldest first: at most `limit` entries, in the order (createdAt, seq,
   * id) where `seq` is an entry's place in the batch it was appended with, strictly after the entry
   * `after` when one is given. `null` when `after` is not an entry of this tenant's log of this object
   * (unknown, another object's, another tenant's), so the service can answer 404 instead of a page.
   */
  log(tenantId: string, objectId: string, page: LogPageQuery): Promise<EnrichmentLogRecord[] | null>;
}
