import type { EnrichmentEngine } from '../../../ports/enrichment-engine.js';
import type { StructuredCompletion } from '../../../ports/structured-completion.js';
import { answerCandidates, readLlmAnswer } from './llm-answer.js';
import { askableFields, buildLlmPrompt, LLM_STRATEGY } from './llm-prompt.js';
import { createMemoryMentions, type MemoryMentionDeps } from './memory-mentions.js';

/** Mentions read before the `high` ones are left out and the rest cut to `LLM_MEMORY_LIMIT`. */
const MENTIONS_READ = 20;

export interface LlmEngineDeps extends MemoryMentionDeps {
  /** The model (LLM_URL); the container wires this engine only when one is configured. */
  completion: StructuredCompletion;
}

/**
 * The LLM engine (`LLM_INFERENCE`): asks a language model for the open fields it may fill, with the
 * object's other values as context and the tenant's memories that mention the object as evidence
 * (`llm-prompt.ts` says what is sent, `llm-answer.ts` how the answer is read). Without a memory to
 * cite it does not ask: what a model knows of a name in general is a guess, not the tenant's knowledge.
 * A failing call (timeout, HTTP error, no JSON, a malformed answer) throws: the run logs `error`.
 */
export function createLlmEngine(deps: LlmEngineDeps): EnrichmentEngine {
  const mentioning = createMemoryMentions(deps);

  return {
    name: 'llm',
    provenance: 'LLM_INFERENCE',
    enabledFor: async () => true,
    async propose({ tenantId, object, definition, openFields, namespaces }) {
      const asked = new Set(askableFields(definition, openFields));
      const tried = Object.fromEntries(openFields.map((f) => [f, asked.has(f) ? [LLM_STRATEGY] : []]));
      const name = object.fields[definition.identityFields[0] ?? 'name']?.value;
      if (asked.size === 0 || typeof name !== 'string' || name.trim() === '') return { candidates: [], tried };
      const memories = await mentioning(tenantId, name, namespaces, MENTIONS_READ);
      const prompt = buildLlmPrompt({ type: object.type, definition, values: object.fields, openFields, memories });
      if (!prompt) return { candidates: [], tried };
      const answer = readLlmAnswer(await deps.completion.complete(prompt));
      return { candidates: answerCandidates(answer, definition, prompt.memoryIds), tried };
    },
  };
}
