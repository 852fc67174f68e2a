import { Piscina } from 'piscina';
import type { WriteAnalyzer } from '../../server/ports/write-analyzer.js';
import type { WriteAnalysis, WriteAnalysisInput, WriteAnalysisOptions } from '../../server/services/memories/write-analysis.js';
import { tsxWorkerExecArgv } from '../../server/tsx-worker.js';

/**
 * Runs consolidation's text analysis (screening, sensitivity, keys, quality, entities, facts) on a
 * worker thread. The consolidating thread then spends its time on the store (candidate lookups and the
 * commit), and asks for the next batch's analyses while it commits the current one, so two cores
 * consolidate faster than one (figures: docs/performance.md#write-analysis-on-a-worker-thread).
 *
 * The thread starts on the first request (its modules take a second or two to load), and stays.
 */
export class ThreadedWriteAnalyzer implements WriteAnalyzer {
  readonly parallel = true;
  readonly options: WriteAnalysisOptions;
  private readonly pool: Piscina<WriteAnalysisInput[], WriteAnalysis[]>;

  constructor(options: WriteAnalysisOptions, threads = 1) {
    this.options = options;
    this.pool = new Piscina<WriteAnalysisInput[], WriteAnalysis[]>({
      filename: new URL('./write-analysis-worker.ts', import.meta.url).href,
      execArgv: tsxWorkerExecArgv(),
      workerData: options,
      minThreads: 0,
      maxThreads: Math.max(1, threads),
      idleTimeout: Number.POSITIVE_INFINITY,
    });
  }

  async analyze(inputs: WriteAnalysisInput[]): Promise<WriteAnalysis[]> {
    if (inputs.length === 0) return [];
    const out = await this.pool.run(inputs);
    if (out.length !== inputs.length) throw new Error(`analysis thread answered ${out.length} analyses for ${inputs.length} writes`);
    return out;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
