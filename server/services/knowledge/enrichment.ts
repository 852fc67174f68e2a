import { AppError } from '../../errors.js';
import { enrichKnowledgeJob } from '../../jobs/catalogue.js';
import type { EnrichmentEngine } from '../../ports/enrichment-engine.js';
import type { EnrichmentLogRecord, KnowledgeObjectRecord, KnowledgeObjectStore } from '../../ports/knowledge.js';
import type { Scheduler } from '../../ports/scheduler.js';
import { isoAt, systemClock, type Clock } from '../clock.js';
import { timeOrderedId } from '../time-ordered-id.js';
import type { UsageService } from '../usage.js';
import { applyRunToCurrent } from './enrichment-apply.js';
import type { PlannedLogEntry } from './enrichment-log-entry.js';
import { openFields, planEngineStep, startRun, type EngineOutput, type RunPlan } from './enrichment-plan.js';
import { acceptsFieldValue } from './field-values.js';
import type { Candidate } from './model.js';
import { derivedState } from './object-state.js';
import type { StructureCatalog } from './structure-catalog.js';

/**
 * Enrichment runs (issue #23 §4). `trigger` marks the object ENRICHING with a run id and enqueues the
 * `knowledge.enrich` job (a second trigger while a run holds the object starts nothing new); `run` asks
 * the engines in order for the fields still open, decides with the shared rules, and writes the values
 * and every log entry in one store write against the object as it is then: a client's PATCH during
 * the run wins (its fields' committed entries become `stale`).
 */

/** A hold older than this is a run that died (its job gave up): a new trigger takes the object over. */
export const RUN_HOLD_MS = 10 * 60_000;
const WRITE_ATTEMPTS = 5;

export interface EnrichmentDeps {
  objects: KnowledgeObjectStore;
  catalog: Pick<StructureCatalog, 'version'>;
  /** In the order they are tried: rule, kg, llm, web. */
  engines: readonly EnrichmentEngine[];
  scheduler: () => Pick<Scheduler, 'now'>;
  usage: Pick<UsageService, 'writeQuota'>;
  clock?: Clock;
}

export type RunOutcome = 'done' | 'skipped';
export type RefreshOutcome = { outcome: 'queued' | 'gone' | 'disabled' } | { outcome: 'held'; runId: string };

/** Whether a run holds the object now (a hold past `RUN_HOLD_MS` is a run that died). */
export function isHeld(enrichment: { since: string } | null, now: number): boolean {
  return enrichment !== null && now - Date.parse(enrichment.since) < RUN_HOLD_MS;
}

export function createEnrichmentService(deps: EnrichmentDeps) {
  const clock = deps.clock ?? systemClock;

  async function definitionOf(record: KnowledgeObjectRecord) {
    const view = await deps.catalog.version(record.tenantId, record.type, record.schemaVersion);
    if (!view) throw new Error(`structure ${record.type}@${record.schemaVersion} of object ${record.id} is missing`);
    return view.definition;
  }

  /** Candidates a structure refuses (a wrong type or format, too large) never reach the decision: logged as `rejected`. */
  function screen(
    record: KnowledgeObjectRecord,
    definition: Awaited<ReturnType<typeof definitionOf>>,
    engine: EnrichmentEngine,
    plan: RunPlan,
    candidates: readonly Candidate[],
  ) {
    const valid: Candidate[] = [];
    const refused: PlannedLogEntry[] = [];
    for (const c of candidates) {
      if (!Object.hasOwn(definition.fields, c.field) || acceptsFieldValue(definition, c.field, c.value)) valid.push(c);
      else
        refused.push({
          runId: plan.runId,
          engine: engine.name,
          field: c.field,
          strategy: c.strategy,
          candidateValue: c.value,
          confidence: c.confidence,
          outcome: 'rejected',
          sourceRefs: [...c.sourceRefs],
          previousValue: record.fields[c.field] ?? null,
        });
    }
    return { valid, refused };
  }

  async function plan(record: KnowledgeObjectRecord, runId: string, namespaces: readonly string[] | null): Promise<RunPlan> {
    const definition = await definitionOf(record);
    let plan = startRun(runId, isoAt(clock()), {
      fields: definition.fields,
      values: record.fields,
      doNotEnrich: record.doNotEnrich,
      accepts: (field, value) => acceptsFieldValue(definition, field, value),
    });
    for (const engine of deps.engines) {
      const open = openFields(plan);
      if (open.length === 0) break;
      if (!(await engine.enabledFor(record.tenantId))) continue;
      let output: EngineOutput;
      let refused: PlannedLogEntry[] = [];
      try {
        const proposal = await engine.propose({ tenantId: record.tenantId, object: record, definition, openFields: open, namespaces });
        const screened = screen(record, definition, engine, plan, proposal.candidates);
        refused = screened.refused;
        output = {
          engine: engine.name,
          provenance: engine.provenance,
          candidates: screened.valid,
          ...(proposal.tried ? { tried: proposal.tried } : {}),
          ...(proposal.failures ? { failures: proposal.failures } : {}),
        };
      } catch (err) {
        output = { engine: engine.name, provenance: engine.provenance, error: err instanceof Error ? err.message : String(err) };
      }
      plan = planEngineStep(plan, output);
      if (refused.length > 0) plan = { ...plan, entries: [...plan.entries, ...refused] };
    }
    return plan;
  }

  const toLog = (record: KnowledgeObjectRecord, entries: readonly PlannedLogEntry[], at: string): EnrichmentLogRecord[] =>
    entries.map((e) => ({
      id: timeOrderedId(),
      tenantId: record.tenantId,
      objectId: record.id,
      runId: e.runId,
      engine: e.engine,
      field: e.field,
      strategy: e.strategy,
      candidateValue: e.candidateValue,
      confidence: e.confidence,
      outcome: e.outcome,
      sourceRefs: e.sourceRefs,
      previousValue: e.previousValue?.value ?? null,
      createdAt: at,
    }));

  /** Ends a hold without a run: the status computed as if no run held the object. */
  async function release(record: KnowledgeObjectRecord): Promise<void> {
    const definition = await definitionOf(record);
    const { missingFields: _m, ...derived } = derivedState(definition, record.fields, { enrichedAt: record.enrichedAt, enrichment: null });
    await deps.objects.update({ ...record, ...derived, enrichment: null, revision: record.revision + 1 }, record.revision, {
      storageBytes: null,
    });
  }

  /** Marks the object ENRICHING under a new run id and enqueues that run; `conflict` when another write came first. */
  async function hold(current: KnowledgeObjectRecord, namespaces: readonly string[] | null): Promise<'ok' | 'conflict' | 'not_found'> {
    const runId = timeOrderedId();
    const holding: KnowledgeObjectRecord = {
      ...current,
      enrichment: { runId, since: isoAt(clock()) },
      status: 'ENRICHING',
      revision: current.revision + 1,
    };
    const outcome = await deps.objects.update(holding, current.revision, { storageBytes: null });
    if (outcome !== 'ok') return outcome === 'not_found' ? 'not_found' : 'conflict';
    try {
      await deps.scheduler().now(enrichKnowledgeJob, {
        tenantId: current.tenantId,
        objectId: current.id,
        runId,
        namespaces: namespaces === null ? null : [...namespaces],
      });
    } catch (err) {
      // Nothing will run: the object must not show ENRICHING until the hold expires.
      await release(holding).catch(() => undefined);
      throw err;
    }
    return 'ok';
  }

  return {
    /** `namespaces`: the triggering key's (null: every namespace); the run reads memories of those only. */
    async trigger(
      tenantId: string,
      type: string,
      id: string,
      namespaces: readonly string[] | null,
    ): Promise<{ id: string; status: 'ENRICHING' }> {
      for (let attempt = 1; ; attempt++) {
        const current = await deps.objects.get(tenantId, id);
        if (!current || current.type !== type) throw new AppError('NOT_FOUND', `${type} object not found`);
        const held = isHeld(current.enrichment, clock());
        if (current.doNotEnrich && !current.enrichment)
          throw new AppError('ENRICHMENT_DISABLED', `${type} object ${id} is marked do_not_enrich`);
        if (held) return { id, status: 'ENRICHING' };
        if (current.doNotEnrich) {
          // A run that died holding an object its client has since opted out: let go, then refuse.
          await release(current);
          throw new AppError('ENRICHMENT_DISABLED', `${type} object ${id} is marked do_not_enrich`);
        }
        const outcome = await hold(current, namespaces);
        if (outcome === 'not_found') throw new AppError('NOT_FOUND', `${type} object not found`);
        if (outcome === 'ok') return { id, status: 'ENRICHING' };
        if (attempt >= WRITE_ATTEMPTS) throw new AppError('CONFLICT', `${type} object ${id} keeps changing; try again`);
      }
    },

    /**
     * A re-enrichment nobody asked for (a memory naming the object was consolidated): a run over every
     * namespace, unless the object is gone, opted out (`disabled`) or held by a live run (`held`, which
     * is left alone).
     */
    async refresh(tenantId: string, objectId: string): Promise<RefreshOutcome> {
      for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
        const current = await deps.objects.get(tenantId, objectId);
        if (!current) return { outcome: 'gone' };
        if (current.doNotEnrich) return { outcome: 'disabled' };
        if (current.enrichment && isHeld(current.enrichment, clock())) return { outcome: 'held', runId: current.enrichment.runId };
        const outcome = await hold(current, null);
        if (outcome !== 'conflict') return { outcome: outcome === 'ok' ? 'queued' : 'gone' };
      }
      throw new Error(`refresh of knowledge object ${objectId} lost ${WRITE_ATTEMPTS} races with other writes`);
    },

    /** The job's work; `skipped` when the object is gone or another run holds it now. */
    async run(tenantId: string, objectId: string, runId: string, namespaces: readonly string[] | null = null): Promise<RunOutcome> {
      const first = await deps.objects.get(tenantId, objectId);
      if (!first || first.enrichment?.runId !== runId) return 'skipped';
      let planned = await plan(first, runId, namespaces);
      let plannedAt = first.schemaVersion;
      const quota = { storageBytes: (await deps.usage.writeQuota(tenantId)).storageBytes };
      for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
        const current = await deps.objects.get(tenantId, objectId);
        if (!current || current.enrichment?.runId !== runId) return 'skipped';
        if (current.schemaVersion !== plannedAt) {
          // A structure activation moved the object during the run: decide again under its new version.
          planned = await plan(current, runId, namespaces);
          plannedAt = current.schemaVersion;
        }
        const at = isoAt(clock());
        const applied = applyRunToCurrent({ values: current.fields, doNotEnrich: current.doNotEnrich }, planned);
        const definition = await definitionOf(current);
        const run = { enrichedAt: at, enrichment: null };
        const { missingFields: _m, ...derived } = derivedState(definition, applied.values, run);
        const next: KnowledgeObjectRecord = {
          ...current,
          fields: applied.values,
          ...derived,
          ...run,
          revision: current.revision + 1,
          updatedAt: Object.keys(applied.writes).length > 0 ? at : current.updatedAt,
        };
        const outcome = await deps.objects.update(next, current.revision, quota, toLog(current, applied.entries, at));
        if (outcome === 'ok') return 'done';
        if (outcome === 'not_found') return 'skipped';
        if (outcome === 'quota_exceeded') {
          // Nothing inferred is written past the plan's storage; the run still ends, and says why.
          const { missingFields: _n, ...kept } = derivedState(definition, current.fields, run);
          const entries = applied.entries.map((e) => (e.outcome === 'committed' ? { ...e, outcome: 'error' as const } : e));
          const released: KnowledgeObjectRecord = { ...current, ...kept, ...run, revision: current.revision + 1 };
          const r = await deps.objects.update(released, current.revision, { storageBytes: null }, toLog(current, entries, at));
          if (r === 'ok' || r === 'not_found') return r === 'ok' ? 'done' : 'skipped';
        }
      }
      throw new Error(`enrichment run ${runId} of ${objectId} lost ${WRITE_ATTEMPTS} races with other writes`);
    },
  };
}

export type EnrichmentService = ReturnType<typeof createEnrichmentService>;
