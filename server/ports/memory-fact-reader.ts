import type { Fact } from '../text/facts.js';

/**
 * Reads the facts memory texts state (`server/text/facts.ts`), for the kg engine. Extraction is most of
 * an enrichment run's CPU, so it may run beside the thread that serves requests and writes: in line
 * (`inThreadFactReader`, services/knowledge/engines/in-thread-fact-reader.ts) or on a worker thread
 * (`adapters/threads/fact-reader.ts`). Pure either way: text in, facts out, in input order.
 */
export interface MemoryFactReader {
  read(texts: readonly string[]): Promise<Fact[][]>;
  /** Releases threads, when the implementation holds any. */
  close?(): Promise<void>;
}
