import type { WriteAnalysis, WriteAnalysisInput, WriteAnalysisOptions } from '../services/memories/write-analysis.js';

/**
 * Runs `createWriteAnalysis` over queued writes. The consolidation service asks for a batch's analyses
 * and, when `parallel` is true, for the next batch's too while it plans and commits the current one.
 * Implementations: `inThreadWriteAnalyzer` (services/memories/in-thread-write-analyzer.ts) and a worker-thread pool in `adapters/threads/`.
 */
export interface WriteAnalyzer {
  /** Analyses run beside the caller's thread: requesting them ahead of need overlaps the work. */
  readonly parallel: boolean;
  /** What the analyses include (the consolidation service reads them, e.g. whether entities are extracted). */
  readonly options: WriteAnalysisOptions;
  /** One analysis per input, in input order. */
  analyze(inputs: WriteAnalysisInput[]): Promise<WriteAnalysis[]>;
  /** Releases threads, when the implementation holds any. */
  close?(): Promise<void>;
}
