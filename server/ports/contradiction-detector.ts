/**
 * Decides whether a newer memory contradicts an older one. The offline detector
 * (`services/consolidation/contradiction.ts`) implements it in process; the LLM one
 * (`adapters/llm/contradiction-detector.ts`) asks a model when LLM_URL is set.
 */
export interface ContradictionInput {
  content: string;
}

export interface ContradictionResult {
  contradicts: boolean;
  subject?: string;
  attribute?: string;
  reason?: string;
  /** Which detector produced the answer. */
  detector?: 'offline' | 'llm';
}

export interface ContradictionDetector {
  detect(newer: ContradictionInput, older: ContradictionInput): Promise<ContradictionResult>;
}
