import type { KnowledgeObjectRecord } from './knowledge.js';
import type { Candidate, EngineName, EnrichmentOutcome, Provenance } from '../services/knowledge/model.js';
import type { StructureDefinition } from '../services/knowledge/structure-definition.js';

/**
 * An enrichment engine (issue #23 §4): given a knowledge object and the fields still open in the run,
 * it proposes candidates; the run decides what they do (`server/services/knowledge/enrichment-plan.ts`).
 * Engines run in a fixed order — rule, kg, llm, web — each asked only for the fields no earlier engine
 * settled. An engine that throws is logged with outcome `error` for each open field; the run goes on.
 */
export interface EnrichmentEngine {
  readonly name: EngineName;
  /** The provenance its values are stored with. */
  readonly provenance: Provenance;
  /** Whether it runs for this tenant (outside engines are off unless configured). */
  enabledFor(tenantId: string): Promise<boolean>;
  propose(request: EnrichmentRequest): Promise<EngineProposal>;
}

export interface EnrichmentRequest {
  tenantId: string;
  object: KnowledgeObjectRecord;
  definition: StructureDefinition;
  /** The fields the engine is asked about. */
  openFields: readonly string[];
  /**
   * The memory namespaces the run may read: those of the API key that triggered it (null: every
   * namespace). Knowledge objects are tenant-wide; what a run infers never comes from memories its
   * caller could not read.
   */
  namespaces: readonly string[] | null;
}

export interface EngineProposal {
  candidates: Candidate[];
  /** The strategies it ran per field, so each that found nothing is logged as a miss. */
  tried?: Record<string, string[]>;
  /**
   * Attempts that stopped before any candidate (a fetch the SSRF policy refused, a page too large ...),
   * logged per field as given, so a user sees why an engine found nothing rather than a plain miss.
   */
  failures?: EngineFailure[];
}

export interface EngineFailure {
  field: string;
  /** What was attempted and why it stopped, e.g. `fetch:blocked_address`. */
  strategy: string;
  outcome: Extract<EnrichmentOutcome, 'policy_denied' | 'error'>;
  sourceRefs: string[];
}
