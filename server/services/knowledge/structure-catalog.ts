import { v5 as uuidv5 } from 'uuid';
import { AppError, type FieldIssue } from '../../errors.js';
import type { KnowledgeStructureStore, StructureRecord } from '../../ports/knowledge.js';
import { BUILTIN_STRUCTURES, BUILTIN_VERSION, isBuiltinType } from './builtin-structures.js';
import type { StructureStatus } from './model.js';
import { parseStructure, type StructureDefinition } from './structure-definition.js';

/**
 * The structures a tenant can bind objects to: the built-ins (never stored: every tenant has
 * `person`, `organization` and `project` at 1.0.0) and the versions the tenant published. One version
 * of a type is ACTIVE at a time; new objects bind to it.
 */

/** A structure as the API shows it, with its parsed definition. */
export interface StructureView {
  id: string;
  type: string;
  version: string;
  status: StructureStatus;
  builtin: boolean;
  definition: StructureDefinition;
  createdAt: string;
  activatedAt: string | null;
}

// Built-ins have one id per tenant, stable across processes and restarts.
const BUILTIN_ID_NAMESPACE = '5b0e7a52-6c1f-4f5e-9a4e-0f6d2c8b7a31';
const builtinId = (tenantId: string, type: string) => uuidv5(`${tenantId}:${type}@${BUILTIN_VERSION}`, BUILTIN_ID_NAMESPACE);
const EPOCH = new Date(0).toISOString();

const validationError = (message: string, fields: FieldIssue[]) => new AppError('VALIDATION_FAILED', message, { fields });

/** Parsed definitions of stored versions, by id and schema: an ACTIVE or DEPRECATED version never changes. */
const parsed = new Map<string, StructureDefinition>();
const PARSED_CACHE_LIMIT = 1000;
/** Published versions a type may have: each is read on every structure lookup of the type. */
export const MAX_VERSIONS_PER_TYPE = 50;

function definitionOf(record: StructureRecord): StructureDefinition {
  const key = `${record.id}:${record.status === 'DRAFT' ? JSON.stringify(record.schema) : ''}`;
  const hit = parsed.get(key);
  if (hit) return hit;
  const outcome = parseStructure(record.type, { schema_version: record.version, schema: record.schema });
  // Stored versions were checked when published; one that no longer parses is a bug, not a client error.
  if (!outcome.ok) throw new Error(`stored structure ${record.type}@${record.version} no longer parses`);
  if (record.status !== 'DRAFT') {
    if (parsed.size >= PARSED_CACHE_LIMIT) parsed.delete(parsed.keys().next().value!);
    parsed.set(key, outcome.definition);
  }
  return outcome.definition;
}

export interface StructureCatalog {
  /** Every version of `type` the tenant can see, oldest first; empty for an unknown type. */
  list(tenantId: string, type: string): Promise<StructureView[]>;
  /** The ACTIVE version of `type`; 404 for an unknown type. */
  active(tenantId: string, type: string): Promise<StructureView>;
  /** One version; null when absent. */
  version(tenantId: string, type: string, version: string): Promise<StructureView | null>;
  /** Checks and stores a DRAFT (400 listing every problem; 409 when that version is in use or no longer a draft). */
  publish(tenantId: string, type: string, body: unknown, at: string, inUse: (version: string) => Promise<boolean>): Promise<StructureView>;
  /** Marks a version ACTIVE (the caller has checked compatibility and migrated). */
  /**
   * Makes `version` ACTIVE if the active version is still `checked` (the view compatibility was checked
   * against; null when the type had none): 409 CONFLICT when another activation came first.
   */
  markActive(tenantId: string, type: string, version: string, at: string, checked: StructureView | null): Promise<void>;
}

export function createStructureCatalog(deps: { structures: KnowledgeStructureStore }): StructureCatalog {
  const storedView = (r: StructureRecord): StructureView => ({
    id: r.id,
    type: r.type,
    version: r.version,
    status: r.status,
    builtin: false,
    definition: definitionOf(r),
    createdAt: r.createdAt,
    activatedAt: r.activatedAt,
  });

  /** Every version as records, the built-in first when the type has one; `parse` turns the chosen ones into views. */
  async function records(tenantId: string, type: string): Promise<{ stored: StructureRecord[]; builtin: StructureView | null }> {
    const stored = await deps.structures.list(tenantId, type);
    if (!isBuiltinType(type) || stored.some((s) => s.version === BUILTIN_VERSION)) return { stored, builtin: null };
    // The built-in is ACTIVE until the tenant activates a version of its own.
    const replaced = stored.some((s) => s.status === 'ACTIVE');
    const builtin: StructureView = {
      id: builtinId(tenantId, type),
      type,
      version: BUILTIN_VERSION,
      status: replaced ? 'DEPRECATED' : 'ACTIVE',
      builtin: true,
      definition: BUILTIN_STRUCTURES[type],
      createdAt: EPOCH,
      activatedAt: EPOCH,
    };
    return { stored, builtin };
  }

  async function list(tenantId: string, type: string): Promise<StructureView[]> {
    const { stored, builtin } = await records(tenantId, type);
    return [...(builtin ? [builtin] : []), ...stored.map(storedView)];
  }

  // Only the version asked for is parsed: a type's drafts cost nothing to the routes that never read them.
  async function find(tenantId: string, type: string, match: (r: { version: string; status: StructureStatus }) => boolean) {
    const { stored, builtin } = await records(tenantId, type);
    if (builtin && match(builtin)) return builtin;
    const record = stored.find(match);
    return record ? storedView(record) : null;
  }

  return {
    list,

    async active(tenantId, type) {
      const active = await find(tenantId, type, (s) => s.status === 'ACTIVE');
      if (!active) throw new AppError('NOT_FOUND', `knowledge type '${type}' not found`);
      return active;
    },

    version: (tenantId, type, version) => find(tenantId, type, (s) => s.version === version),

    async publish(tenantId, type, body, at, inUse) {
      const outcome = parseStructure(type, body);
      if (!outcome.ok) throw validationError(`structure ${type} is not valid`, outcome.problems);
      const { definition } = outcome;
      if (isBuiltinType(type) && definition.version === BUILTIN_VERSION) {
        throw new AppError('CONFLICT', `${type}@${BUILTIN_VERSION} is built in and cannot change; publish another version`);
      }
      if (await inUse(definition.version)) {
        throw new AppError('CONFLICT', `${type}@${definition.version} is used by knowledge objects and cannot change`);
      }
      const existing = await deps.structures.get(tenantId, type, definition.version);
      if (!existing && (await deps.structures.list(tenantId, type)).length >= MAX_VERSIONS_PER_TYPE) {
        throw new AppError('CONFLICT', `${type} has ${MAX_VERSIONS_PER_TYPE} versions, the most a type may have`);
      }
      const record: StructureRecord = {
        id: existing?.id ?? crypto.randomUUID(),
        tenantId,
        type,
        version: definition.version,
        status: 'DRAFT',
        schema: definition.schema as StructureRecord['schema'],
        createdAt: existing?.createdAt ?? at,
        activatedAt: null,
      };
      if ((await deps.structures.saveDraft(record)) === 'not_draft') {
        throw new AppError('CONFLICT', `${type}@${definition.version} is no longer a draft and cannot change`);
      }
      return storedView(record);
    },

    async markActive(tenantId, type, version, at, checked) {
      // A built-in is never stored: while it is the active one, no stored version is ACTIVE.
      const expected = checked && !checked.builtin ? checked.version : null;
      const result = await deps.structures.activate(tenantId, type, version, at, expected);
      if (result === 'not_found') throw new AppError('NOT_FOUND', `${type}@${version} not found`);
      if (result === 'changed')
        throw new AppError('CONFLICT', `another version of ${type} was activated meanwhile; check it and try again`);
    },
  };
}
