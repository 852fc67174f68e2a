import { AppError, type FieldIssue } from '../../errors.js';
import type { AuditActor } from '../../ports/audit.js';
import type {
  EnrichmentLogRecord,
  KnowledgeObjectRecord,
  KnowledgeObjectStore,
  KnowledgeStructureStore,
  ObjectListCursor,
} from '../../ports/knowledge.js';
import type { AuditService, RequestMeta } from '../audit.js';
import { isoAt, systemClock, type Clock } from '../clock.js';
import { timeOrderedId } from '../time-ordered-id.js';
import type { UsageService } from '../usage.js';
import type { MissingField } from './completeness.js';
import { checkCreateFields, checkPatchFields, type FieldValuesOutcome } from './field-values.js';
import { BUILTIN_TYPES, isBuiltinType } from './builtin-structures.js';
import type { FieldValue, JsonValue, ObjectStatus } from './model.js';
import { decodeObjectCursor, encodeObjectCursor } from './object-cursor.js';
import { agentValue, derivedState, knownNoneValue } from './object-state.js';
import { activateStructure } from './structure-activation.js';
import { createStructureCatalog, type StructureView } from './structure-catalog.js';
import type { MigrationPlan } from './structure-migration.js';
import type { StructureDefinition } from './structure-definition.js';

/** Who changed something, for the audit log. */
export interface KnowledgeActedBy extends RequestMeta {
  actor: AuditActor;
}

/** An object as the API answers it: the record and, from its structure, what to fill next. */
export interface KnowledgeObjectView {
  record: KnowledgeObjectRecord;
  missingFields: MissingField[];
}

export interface ObjectInput {
  fields: unknown;
  /** Fields the client states have no value. */
  knownNone?: readonly string[];
  doNotEnrich?: boolean;
}

export interface ObjectListInput {
  limit: number;
  completenessLt?: number;
  status?: ObjectStatus;
  cursor?: string;
  /** Objects to skip first (the portal pages by offset); `nextCursor` is then null. */
  offset?: number;
}

/** One knowledge type of a tenant as the portal lists it: built in or published, its ACTIVE version and live objects. */
export interface KnowledgeTypeSummary {
  type: string;
  builtin: boolean;
  /** null while the type has only drafts. */
  activeVersion: string | null;
  versions: number;
  objectCount: number;
}

/** A page of an object's enrichment log: after the entry `after` (the previous page's last), at most `limit` (default the maximum). */
export interface LogPageInput {
  after?: string;
  runId?: string;
  limit?: number;
}

export interface KnowledgeServiceDeps {
  structures: KnowledgeStructureStore;
  objects: KnowledgeObjectStore;
  audit: Pick<AuditService, 'record'>;
  usage: Pick<UsageService, 'writeQuota' | 'quotaExceeded'>;
  clock?: Clock;
}

/** Attempts of a client write that lost a race with another write of the same object (a run's, usually). */
const WRITE_ATTEMPTS = 5;
/** The most log entries one page answers (and the default page size): an object re-enriched often logs thousands. */
export const ENRICHMENT_LOG_MAX_LIMIT = 1000;

const notFound = (type: string) => new AppError('NOT_FOUND', `${type} object not found`);
const invalid = (message: string, fields: FieldIssue[]) => new AppError('VALIDATION_FAILED', message, { fields });

export function createKnowledgeService(deps: KnowledgeServiceDeps) {
  const clock = deps.clock ?? systemClock;
  const catalog = createStructureCatalog({ structures: deps.structures });

  async function storageQuota(tenantId: string) {
    return { storageBytes: (await deps.usage.writeQuota(tenantId)).storageBytes };
  }

  /** The object if it belongs to the tenant and is of `type` (another tenant's, or another type's, is 404). */
  async function load(tenantId: string, type: string, id: string): Promise<KnowledgeObjectRecord> {
    const record = await deps.objects.get(tenantId, id);
    if (!record || record.type !== type) throw notFound(type);
    return record;
  }

  async function definitionFor(tenantId: string, record: KnowledgeObjectRecord): Promise<StructureDefinition> {
    const view = await catalog.version(tenantId, record.type, record.schemaVersion);
    if (!view) throw new Error(`structure ${record.type}@${record.schemaVersion} of object ${record.id} is missing`);
    return view.definition;
  }

  /** `known_none` entries: fields of the structure, never identity fields, never also given a value. */
  function knownNoneProblems(definition: StructureDefinition, names: readonly string[], values: Record<string, unknown>): FieldIssue[] {
    const problems: FieldIssue[] = [];
    for (const name of names) {
      const field = `known_none.${name}`;
      if (!Object.hasOwn(definition.fields, name)) problems.push({ field, message: `${definition.type} has no field '${name}'` });
      else if (definition.identityFields.includes(name)) problems.push({ field, message: 'an identity field always has a value' });
      else if (Object.hasOwn(values, name) && values[name] !== null) problems.push({ field, message: 'also given a value' });
    }
    return problems;
  }

  /** The checked values and `known_none` of a create or PATCH; 413 when too large, else 400 naming every problem of both. */
  function accepted(
    definition: StructureDefinition,
    input: Partial<ObjectInput>,
    checked: FieldValuesOutcome<JsonValue | null>,
  ): { values: Record<string, JsonValue | null>; knownNone: readonly string[] } {
    if (!checked.ok && checked.reason === 'too_large') throw new AppError('PAYLOAD_TOO_LARGE', checked.tooLarge.message);
    const knownNone = input.knownNone ?? [];
    const problems = [
      ...(checked.ok ? [] : checked.problems),
      ...knownNoneProblems(definition, knownNone, (input.fields ?? {}) as Record<string, unknown>),
    ];
    if (problems.length > 0 || !checked.ok) throw invalid(`the fields do not fit ${definition.type}@${definition.version}`, problems);
    return { values: checked.values, knownNone };
  }

  const view = (definition: StructureDefinition, record: KnowledgeObjectRecord): KnowledgeObjectView => ({
    record,
    missingFields: derivedState(definition, record.fields, record).missingFields,
  });

  return {
    catalog,

    async structures(tenantId: string, type: string): Promise<StructureView[]> {
      const list = await catalog.list(tenantId, type);
      if (list.length === 0) throw new AppError('NOT_FOUND', `knowledge type '${type}' not found`);
      return list;
    },

    /** Every type the tenant can use or has objects of (built-ins first, then by name), with its object count. */
    async types(tenantId: string): Promise<KnowledgeTypeSummary[]> {
      const [published, counts] = await Promise.all([deps.structures.types(tenantId), deps.objects.countByType(tenantId)]);
      const names = [...new Set([...BUILTIN_TYPES, ...[...published, ...Object.keys(counts)].sort()])];
      return Promise.all(
        names.map(async (type) => {
          const versions = await catalog.list(tenantId, type);
          return {
            type,
            builtin: isBuiltinType(type),
            activeVersion: versions.find((v) => v.status === 'ACTIVE')?.version ?? null,
            versions: versions.length,
            objectCount: counts[type] ?? 0,
          };
        }),
      );
    },

    async publishStructure(tenantId: string, type: string, body: unknown, by: KnowledgeActedBy): Promise<StructureView> {
      const at = isoAt(clock());
      const published = await catalog.publish(tenantId, type, body, at, (version) => deps.objects.usesVersion(tenantId, type, version));
      await deps.audit.record({
        tenantId,
        type: 'knowledge.structure_publish',
        ...by,
        target: { type: 'knowledge_structure', id: published.id },
        details: { ks_type: type, schema_version: published.version },
      });
      return published;
    },

    async activateStructure(
      tenantId: string,
      type: string,
      version: string,
      plan: MigrationPlan | undefined,
      by: KnowledgeActedBy,
    ): Promise<StructureView> {
      const result = await activateStructure({ catalog, objects: deps.objects, clock }, tenantId, type, version, plan);
      await deps.audit.record({
        tenantId,
        type: 'knowledge.structure_activate',
        ...by,
        target: { type: 'knowledge_structure', id: result.structure.id },
        details: { ks_type: type, schema_version: version, previous_version: result.previousVersion, migrated: result.migrated },
      });
      return result.structure;
    },

    async create(tenantId: string, type: string, input: ObjectInput): Promise<KnowledgeObjectView> {
      const structure = await catalog.active(tenantId, type);
      const definition = structure.definition;
      const { values, knownNone } = accepted(definition, input, checkCreateFields(definition, input.fields));
      const at = isoAt(clock());
      const fields: Record<string, FieldValue> = {};
      for (const [name, value] of Object.entries(values)) if (value !== null) fields[name] = agentValue(value, at);
      for (const name of knownNone) fields[name] = knownNoneValue(at);
      const run = { enrichedAt: null, enrichment: null };
      const { missingFields: _m, ...derived } = derivedState(definition, fields, run);
      const record: KnowledgeObjectRecord = {
        id: timeOrderedId(),
        tenantId,
        type,
        structureId: structure.id,
        schemaVersion: definition.version,
        doNotEnrich: input.doNotEnrich === true,
        fields,
        ...derived,
        ...run,
        revision: 1,
        createdAt: at,
        updatedAt: at,
      };
      if ((await deps.objects.create(record, await storageQuota(tenantId))) === 'quota_exceeded') throw deps.usage.quotaExceeded('storage');
      return view(definition, record);
    },

    async get(tenantId: string, type: string, id: string): Promise<KnowledgeObjectView> {
      const record = await load(tenantId, type, id);
      return view(await definitionFor(tenantId, record), record);
    },

    async list(tenantId: string, type: string, input: ObjectListInput) {
      await catalog.active(tenantId, type);
      const byCompleteness = input.completenessLt !== undefined;
      const after: ObjectListCursor | undefined = input.cursor === undefined ? undefined : decodeObjectCursor(input.cursor, byCompleteness);
      const page = await deps.objects.list(tenantId, type, {
        limit: input.limit,
        ...(byCompleteness ? { completenessLt: input.completenessLt } : {}),
        ...(input.status ? { status: input.status } : {}),
        ...(after ? { after } : {}),
        ...(input.offset ? { offset: input.offset } : {}),
      });
      const last = page.objects.at(-1);
      const nextCursor =
        last && page.objects.length === input.limit && !input.offset
          ? encodeObjectCursor({
              ...(byCompleteness ? { completenessScore: last.completenessScore } : {}),
              createdAt: last.createdAt,
              id: last.id,
            })
          : null;
      const definitions = new Map<string, StructureDefinition>();
      const objects: KnowledgeObjectView[] = [];
      for (const record of page.objects) {
        const definition = definitions.get(record.schemaVersion) ?? (await definitionFor(tenantId, record));
        definitions.set(record.schemaVersion, definition);
        objects.push(view(definition, record));
      }
      return { objects, total: page.total, nextCursor };
    },

    /** Merges a client's change: omitted fields kept, `null` clears, arrays replace. A client write wins over a running enrichment. */
    async patch(tenantId: string, type: string, id: string, input: Partial<ObjectInput>): Promise<KnowledgeObjectView> {
      for (let attempt = 1; ; attempt++) {
        const current = await load(tenantId, type, id);
        const definition = await definitionFor(tenantId, current);
        const { values, knownNone } = accepted(definition, input, checkPatchFields(definition, input.fields ?? {}));
        const at = isoAt(clock());
        const fields: Record<string, FieldValue> = { ...current.fields };
        for (const [name, value] of Object.entries(values)) {
          if (value === null) delete fields[name];
          else fields[name] = agentValue(value, at);
        }
        for (const name of knownNone) fields[name] = knownNoneValue(at);
        const { missingFields: _m, ...derived } = derivedState(definition, fields, current);
        const next: KnowledgeObjectRecord = {
          ...current,
          fields,
          ...derived,
          doNotEnrich: input.doNotEnrich ?? current.doNotEnrich,
          revision: current.revision + 1,
          updatedAt: at,
        };
        const outcome = await deps.objects.update(next, current.revision, await storageQuota(tenantId));
        if (outcome === 'ok') return view(definition, next);
        if (outcome === 'not_found') throw notFound(type);
        if (outcome === 'quota_exceeded') throw deps.usage.quotaExceeded('storage');
        if (attempt >= WRITE_ATTEMPTS) throw new AppError('CONFLICT', `${type} object ${id} keeps changing; try again`);
      }
    },

    async remove(tenantId: string, type: string, id: string, by: KnowledgeActedBy): Promise<void> {
      await load(tenantId, type, id);
      const removed = await deps.objects.delete(tenantId, id);
      if (!removed) throw notFound(type);
      // What was deleted is gone: the audit keeps who, when and which object, never its values.
      await deps.audit.record({
        tenantId,
        type: 'knowledge.object_delete',
        ...by,
        target: { type: 'knowledge_object', id },
        details: { ks_type: type, schema_version: removed.schemaVersion },
      });
    },

    async log(tenantId: string, type: string, id: string, page: LogPageInput = {}): Promise<EnrichmentLogRecord[]> {
      const limit = page.limit ?? ENRICHMENT_LOG_MAX_LIMIT;
      if (!Number.isInteger(limit) || limit < 1 || limit > ENRICHMENT_LOG_MAX_LIMIT) {
        const message = `limit must be an integer from 1 to ${ENRICHMENT_LOG_MAX_LIMIT}`;
        throw invalid(message, [{ field: 'limit', message }]);
      }
      await load(tenantId, type, id);
      const entries = await deps.objects.log(tenantId, id, { after: page.after ?? null, runId: page.runId ?? null, limit });
      // An `after` from another object's log (or another tenant's) reads as unknown: never a page of the wrong log.
      if (!entries) throw new AppError('NOT_FOUND', `enrichment log entry '${page.after}' is not an entry of this ${type} object's log`);
      return entries;
    },
  };
}

export type KnowledgeService = ReturnType<typeof createKnowledgeService>;
