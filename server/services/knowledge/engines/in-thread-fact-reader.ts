import type { MemoryFactReader } from '../../../ports/memory-fact-reader.js';
import { extractFacts } from '../../../text/facts.js';

/** Facts read on the caller's thread (KNOWLEDGE_FACT_THREADS=0, and the default of the kg engine). */
export const inThreadFactReader: MemoryFactReader = {
  read: async (texts) => texts.map((text) => extractFacts(text)),
};
