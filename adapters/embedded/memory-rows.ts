import type {
  ContradictionPolicy,
  MemoryCandidate,
  MemoryHitRecord,
  MemoryRecord,
  MemoryVersionRecord,
} from '../../server/ports/memories.js';

/** How the embedded memory store's rows read back as the port's records. */

/** Columns of `memories` as stored. */
export interface MemoryRow {
  id: string;
  tenant_id: string;
  namespace: string;
  agent_id: string | null;
  type: MemoryRecord['type'];
  title: string;
  content: string;
  tags: string;
  metadata: string;
  writer_sensitivity: MemoryRecord['writerSensitivity'];
  sensitivity: MemoryRecord['sensitivity'];
  sensitivity_reasons: string;
  status: MemoryRecord['status'];
  head_version: number;
  committed_version: number;
  pending_count: number;
  contradiction_status: MemoryRecord['contradictionStatus'];
  contradiction_policy: ContradictionPolicy | null;
  conflicts_with: string;
  superseded_by: string | null;
  merged_into: string | null;
  injection_flagged: number;
  injection_score: number;
  injection_patterns: string;
  quality: number;
  fingerprint: string | null;
  size_bytes: number;
  created_at: string;
  updated_at: string;
}

/** A memory row's columns, in this order: every memory read selects them, a create inserts them. */
const MEMORY_COLUMN_NAMES = [
  'id',
  'tenant_id',
  'namespace',
  'agent_id',
  'type',
  'title',
  'content',
  'tags',
  'metadata',
  'writer_sensitivity',
  'sensitivity',
  'sensitivity_reasons',
  'status',
  'head_version',
  'committed_version',
  'pending_count',
  'contradiction_status',
  'contradiction_policy',
  'conflicts_with',
  'superseded_by',
  'merged_into',
  'injection_flagged',
  'injection_score',
  'injection_patterns',
  'quality',
  'fingerprint',
  'size_bytes',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof MemoryRow)[];
export const MEMORY_COLUMNS = MEMORY_COLUMN_NAMES.join(', ');
/** One `?` per column of MEMORY_COLUMNS, for the INSERT that writes a whole row. */
export const MEMORY_PLACEHOLDERS = MEMORY_COLUMN_NAMES.map(() => '?').join(', ');

/**
 * A memory row read as an array (`.raw(true)`), MEMORY_COLUMNS in order. libsql builds a row object
 * property by property; for these 29 columns that was most of a search's hit resolution, an array a
 * fraction of it (figures: docs/performance.md#rows-read-as-arrays).
 */
type RowOf<Names extends readonly (keyof MemoryRow)[]> = {
  -readonly [I in keyof Names]: Names[I] extends keyof MemoryRow ? MemoryRow[Names[I]] : never;
};
export type RawMemoryRow = RowOf<typeof MEMORY_COLUMN_NAMES>;

export function toMemoryRecord(row: unknown[]): MemoryRecord {
  const [
    id,
    tenantId,
    namespace,
    agentId,
    type,
    title,
    content,
    tags,
    metadata,
    writerSensitivity,
    sensitivity,
    sensitivityReasons,
    status,
    headVersion,
    committedVersion,
    pendingCount,
    contradictionStatus,
    contradictionPolicy,
    conflictsWith,
    supersededBy,
    mergedInto,
    injectionFlagged,
    injectionScore,
    injectionPatterns,
    quality,
    ,
    sizeBytes,
    createdAt,
    updatedAt,
  ] = row as RawMemoryRow;
  return {
    id,
    tenantId,
    namespace,
    agentId,
    type,
    title,
    content,
    tags: JSON.parse(tags) as string[],
    metadata: JSON.parse(metadata) as MemoryRecord['metadata'],
    writerSensitivity,
    sensitivity,
    sensitivityReasons: JSON.parse(sensitivityReasons) as string[],
    status,
    version: headVersion,
    committedVersion,
    pendingCount,
    contradictionStatus,
    contradictionPolicy,
    conflictsWith: JSON.parse(conflictsWith) as string[],
    supersededBy,
    mergedInto,
    injectionFlagged: injectionFlagged === 1,
    injectionScore,
    injectionPatterns: JSON.parse(injectionPatterns) as MemoryRecord['injectionPatterns'],
    quality,
    sizeBytes,
    createdAt,
    updatedAt,
  };
}

/**
 * The columns a search hit reads (`MemoryHitRecord`), in this order, as one JSON array per memory: a
 * search page's rows come back as a single string (one JSON.parse, tags and metadata included) instead
 * of ten values a row through libsql, which is cheaper per page (figures:
 * docs/performance.md#a-search-page-as-one-json-array).
 */
export const HIT_JSON = `json_array(id, namespace, agent_id, title, content, json(tags), json(metadata), head_version, committed_version, created_at, injection_flagged)`;
export type HitRow = [
  MemoryRow['id'],
  MemoryRow['namespace'],
  MemoryRow['agent_id'],
  MemoryRow['title'],
  MemoryRow['content'],
  string[],
  MemoryRecord['metadata'],
  MemoryRow['head_version'],
  MemoryRow['committed_version'],
  MemoryRow['created_at'],
  MemoryRow['injection_flagged'],
];

export function toHitRecord(row: HitRow): MemoryHitRecord {
  const [id, namespace, agentId, title, content, tags, metadata, headVersion, committedVersion, createdAt, injectionFlagged] = row;
  return {
    id,
    namespace,
    agentId,
    title,
    content,
    tags,
    metadata,
    version: headVersion,
    committedVersion,
    createdAt,
    injectionFlagged: injectionFlagged === 1,
  };
}

export interface VersionRow {
  memory_id: string;
  version: number;
  change: MemoryVersionRecord['change'];
  title: string;
  content: string;
  tags: string;
  type: MemoryVersionRecord['type'];
  agent_id: string | null;
  metadata: string;
  sensitivity: MemoryVersionRecord['sensitivity'];
  status: MemoryVersionRecord['status'];
  rolled_back_to: number | null;
  created_at: string;
}

export const VERSION_COLUMNS =
  'memory_id, version, change, title, content, tags, type, agent_id, metadata, sensitivity, status, rolled_back_to, created_at';

export function toVersionRecord(row: VersionRow): MemoryVersionRecord {
  return {
    memoryId: row.memory_id,
    version: row.version,
    change: row.change,
    title: row.title,
    content: row.content,
    tags: JSON.parse(row.tags) as string[],
    type: row.type,
    agentId: row.agent_id,
    metadata: JSON.parse(row.metadata) as MemoryVersionRecord['metadata'],
    sensitivity: row.sensitivity,
    status: row.status,
    rolledBackTo: row.rolled_back_to,
    createdAt: row.created_at,
  };
}

export const CANDIDATE_COLUMNS = 'id, namespace, title, content, tags, type, agent_id, committed_version, injection_flagged, fingerprint';
/**
 * What makes a memory a dedupe/contradiction candidate: consolidated, active, not merged, nothing
 * queued. Every candidate statement applies it, so content read for the cache is always a committed
 * version's (see candidate-cache.ts). `m` is the alias of `memories`.
 */
export const IS_CANDIDATE = "m.status = 'active' AND m.merged_into IS NULL AND m.pending_count = 0";

export interface CandidateRow {
  id: string;
  namespace: string;
  title: string;
  content: string;
  tags: string;
  type: MemoryCandidate['type'];
  agent_id: string | null;
  committed_version: number;
  injection_flagged: number;
  fingerprint: string | null;
}

export function toCandidate(r: CandidateRow): MemoryCandidate {
  return {
    id: r.id,
    namespace: r.namespace,
    title: r.title,
    content: r.content,
    tags: JSON.parse(r.tags) as string[],
    type: r.type,
    agentId: r.agent_id,
    committedVersion: r.committed_version,
    injectionFlagged: r.injection_flagged === 1,
    fingerprint: r.fingerprint,
  };
}
