import { AppError } from '../../errors.js';
import type { EnrichmentLogRecord, KnowledgeObjectRecord, KnowledgeObjectStore } from '../../ports/knowledge.js';
import { isoAt, type Clock } from '../clock.js';
import { timeOrderedId } from '../time-ordered-id.js';
import { checkPatchFields } from './field-values.js';
import { derivedState } from './object-state.js';
import type { StructureCatalog, StructureView } from './structure-catalog.js';
import { compareStructures } from './structure-compatibility.js';
import { migrateFields, planMigration, type Migration, type MigrationPlan } from './structure-migration.js';

/**
 * `POST /v1/knowledge/{type}/structures/{version}/activate`: checks the version against the ACTIVE one
 * (an incompatible change needs a migration plan covering it: 409 INCOMPATIBLE_SCHEMA without one, 400
 * when the plan does not fit), makes it ACTIVE, then moves every object of the type to it, a page at
 * a time, keeping untouched fields exactly and logging each touched field (engine `migration`).
 *
 * Activating first and migrating after: objects not yet moved stay valid under the version they are
 * bound to, and activating again (idempotent) moves what a crash left behind.
 */

const PAGE = 100;
const ATTEMPTS = 5;

export interface ActivationResult {
  structure: StructureView;
  /** Null for the first version of a type. */
  previousVersion: string | null;
  migrated: number;
}

interface Deps {
  catalog: StructureCatalog;
  objects: KnowledgeObjectStore;
  clock: Clock;
}

export async function activateStructure(
  deps: Deps,
  tenantId: string,
  type: string,
  version: string,
  plan: MigrationPlan | undefined,
): Promise<ActivationResult> {
  const next = await deps.catalog.version(tenantId, type, version);
  if (!next) throw new AppError('NOT_FOUND', `${type}@${version} not found`);
  const active = await deps.catalog.active(tenantId, type).catch((err: unknown) => {
    if (err instanceof AppError && err.code === 'NOT_FOUND') return null;
    throw err;
  });
  // The first version of a tenant's own type: nothing to compare with, no object to move.
  if (!active) {
    await deps.catalog.markActive(tenantId, type, version, isoAt(deps.clock()), null);
    return { structure: { ...next, status: 'ACTIVE' }, previousVersion: null, migrated: 0 };
  }
  if (next.builtin && active.version !== version) {
    throw new AppError('CONFLICT', `${type}@${version} is built in and was replaced; publish a new version instead`);
  }
  const migration = migrationTo(active, next, plan);
  if (active.version !== version) await deps.catalog.markActive(tenantId, type, version, isoAt(deps.clock()), active);
  const plans = new Map<string, Migration | null>([[active.version, migration]]);
  let migrated = 0;
  let afterId: string | null = null;
  for (;;) {
    const page = await deps.objects.listNotAtVersion(tenantId, type, version, afterId, PAGE);
    if (page.length === 0) break;
    afterId = page.at(-1)!.id;
    for (const record of page) {
      if (!plans.has(record.schemaVersion)) plans.set(record.schemaVersion, await olderPlan(deps.catalog, tenantId, record, next, plan));
      const m = plans.get(record.schemaVersion)!;
      // An object of an older version the plan does not fit stays where it is: still valid there.
      if (m && (await moveObject(deps, record, next, m))) migrated++;
    }
  }
  return { structure: { ...next, status: 'ACTIVE' }, previousVersion: active.version, migrated };
}

function migrationTo(active: StructureView, next: StructureView, plan: MigrationPlan | undefined): Migration {
  const outcome = planMigration(active.definition, next.definition, plan);
  if (outcome.ok) {
    // A default is written into every object: it keeps the size limits of any value a client writes.
    for (const [field, value] of outcome.migration.defaults) {
      const sized = checkPatchFields(next.definition, { [field]: value });
      if (!sized.ok && sized.reason === 'too_large')
        throw new AppError('PAYLOAD_TOO_LARGE', `migration default of ${field}: ${sized.tooLarge.message}`);
    }
    return outcome.migration;
  }
  const changes = compareStructures(active.definition, next.definition);
  if (plan === undefined && changes.length > 0) {
    throw new AppError(
      'INCOMPATIBLE_SCHEMA',
      `${next.type}@${next.version} changes what objects of ${active.version} hold; send a migration plan`,
      {
        fields: changes.map((c) => ({ field: c.field, message: c.message })),
      },
    );
  }
  throw new AppError('VALIDATION_FAILED', 'the migration plan does not fit', { fields: outcome.problems });
}

async function olderPlan(
  catalog: StructureCatalog,
  tenantId: string,
  record: KnowledgeObjectRecord,
  next: StructureView,
  plan: MigrationPlan | undefined,
): Promise<Migration | null> {
  const from = await catalog.version(tenantId, record.type, record.schemaVersion);
  if (!from) return null;
  const outcome = planMigration(from.definition, next.definition, plan);
  return outcome.ok ? outcome.migration : null;
}

/** Moves one object; re-read and retried when a concurrent write changed it meanwhile. */
async function moveObject(deps: Deps, first: KnowledgeObjectRecord, next: StructureView, migration: Migration): Promise<boolean> {
  let record: KnowledgeObjectRecord | null = first;
  for (let attempt = 0; record && attempt < ATTEMPTS; attempt++) {
    if (record.schemaVersion === next.version) return false;
    const at = isoAt(deps.clock());
    const moved = migrateFields(record.fields, migration, next.definition, at);
    const { missingFields: _m, ...derived } = derivedState(next.definition, moved.fields, record);
    const updated: KnowledgeObjectRecord = {
      ...record,
      structureId: next.id,
      schemaVersion: next.version,
      fields: moved.fields,
      ...derived,
      revision: record.revision + 1,
      updatedAt: at,
    };
    const runId = `migration:${next.version}`;
    const log: EnrichmentLogRecord[] = moved.touched.map((t) => ({
      id: timeOrderedId(),
      tenantId: record!.tenantId,
      objectId: record!.id,
      runId,
      engine: 'migration',
      field: t.field,
      strategy: t.from ? `renamed_from:${t.from}` : t.action,
      candidateValue: moved.fields[t.field]?.value ?? null,
      confidence: moved.fields[t.field]?.confidence ?? null,
      outcome: 'committed',
      sourceRefs: [`structure:${next.id}`],
      previousValue: t.previous?.value ?? null,
      createdAt: at,
    }));
    // A migration never fails on the storage quota: it moves what the tenant already stores.
    const outcome = await deps.objects.update(updated, record.revision, { storageBytes: null }, log);
    if (outcome === 'ok') return true;
    if (outcome === 'not_found') return false;
    record = await deps.objects.get(record.tenantId, record.id);
  }
  return false;
}
