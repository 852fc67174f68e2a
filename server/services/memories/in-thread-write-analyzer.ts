import type { WriteAnalyzer } from '../../ports/write-analyzer.js';
import { createWriteAnalysis, type WriteAnalysisOptions } from './write-analysis.js';

/** Analyses on the calling thread (tests, `CONSOLIDATION_THREADS=0`). */
export function inThreadWriteAnalyzer(options: WriteAnalysisOptions): WriteAnalyzer {
  const analyse = createWriteAnalysis(options);
  return {
    parallel: false,
    options,
    analyze: async (inputs) => inputs.map(analyse),
  };
}
