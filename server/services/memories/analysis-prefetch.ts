/**
 * The write analyses of a consolidation's batches, requested from the `WriteAnalyzer` ahead of need:
 * a parallel analyzer (a worker thread) analyses batch n + 1 while the store thread plans and commits
 * batch n, and a batch finds its analyses already requested.
 */
import type { WriteAnalyzer } from '../../ports/write-analyzer.js';
import type { QueuedWrite } from '../../ports/write-queue.js';
import type { WriteAnalysis } from './write-analysis.js';

export interface AnalysisPrefetch {
  /** The analyses of these writes: requested now unless already requested (by an earlier batch). */
  analysesOf(writes: readonly QueuedWrite[]): Promise<WriteAnalysis>[];
  /** Drops the analyses of writes that were committed. */
  forget(writes: readonly QueuedWrite[]): void;
}

/** `maxKept`: analyses held at most, requested and not yet used. */
export function createAnalysisPrefetch(analyzer: WriteAnalyzer, maxKept: number): AnalysisPrefetch {
  /**
   * Analyses requested and not yet used, by tenant and queued write id (a write's text never changes).
   * Each drain holds its current batch and the one requested ahead; room is kept for the jobs that
   * drain tenants concurrently, and entries of writes deleted meanwhile age out.
   */
  const analyses = new Map<string, Promise<WriteAnalysis>>();
  const analysisKey = (w: QueuedWrite) => `${w.tenantId}:${w.id}`;

  function analysesOf(writes: readonly QueuedWrite[]): Promise<WriteAnalysis>[] {
    const out = writes.map((w) => analyses.get(analysisKey(w)));
    const missing = writes.filter((_, i) => out[i] === undefined);
    if (missing.length > 0) {
      // Entries of writes deleted before they were consolidated would otherwise stay forever.
      while (analyses.size + missing.length > maxKept && analyses.size > 0) analyses.delete(analyses.keys().next().value!);
      const all = analyzer.analyze(
        missing.map((w) => ({
          title: w.content.title,
          content: w.content.content,
          tags: w.content.tags,
          metadata: w.content.metadata,
          agentId: w.content.agentId,
          writerSensitivity: w.content.writerSensitivity,
        })),
      );
      const fresh = new Map<string, Promise<WriteAnalysis>>();
      missing.forEach((w, i) => {
        const key = analysisKey(w);
        const one = all.then((r) => {
          if (r[i] === undefined) throw new Error(`the write analyzer answered ${r.length} analyses for ${missing.length} writes`);
          return r[i];
        });
        // A failed analysis is forgotten (the batch that needs it asks again); a prefetch nobody
        // awaited must not become an unhandled rejection.
        one.catch(() => {
          if (analyses.get(key) === one) analyses.delete(key);
        });
        analyses.set(key, one);
        fresh.set(key, one);
      });
      writes.forEach((w, i) => {
        out[i] ??= fresh.get(analysisKey(w));
      });
    }
    return out as Promise<WriteAnalysis>[];
  }

  return {
    analysesOf,
    forget(writes) {
      for (const w of writes) analyses.delete(analysisKey(w));
    },
  };
}
