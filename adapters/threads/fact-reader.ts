import { Piscina } from 'piscina';
import type { MemoryFactReader } from '../../server/ports/memory-fact-reader.js';
import type { Fact } from '../../server/text/facts.js';
import { tsxWorkerExecArgv } from '../../server/tsx-worker.js';

/**
 * Reads memory facts for the kg engine on worker threads, so an enrichment run's extraction (most of its
 * CPU) uses another core than the one serving requests and writing runs (figures: docs/performance.md,
 * offline enrichment). Threads start on the first request (their modules take a second or two to
 * load) and stay.
 */
export class ThreadedFactReader implements MemoryFactReader {
  private readonly pool: Piscina<string[], Fact[][]>;

  constructor(threads = 1) {
    this.pool = new Piscina<string[], Fact[][]>({
      filename: new URL('./fact-reader-worker.ts', import.meta.url).href,
      execArgv: tsxWorkerExecArgv(),
      minThreads: 0,
      maxThreads: Math.max(1, threads),
      idleTimeout: Number.POSITIVE_INFINITY,
    });
  }

  async read(texts: readonly string[]): Promise<Fact[][]> {
    if (texts.length === 0) return [];
    const out = await this.pool.run([...texts]);
    if (out.length !== texts.length) throw new Error(`fact thread answered ${out.length} lists for ${texts.length} texts`);
    return out;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
