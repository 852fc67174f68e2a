/**
 * The bench's side of the load-generator thread: one pass at a time, answered as a promise. The
 * thread (`load-worker.ts`, type-checked with the rest) runs under piscina, which loads TypeScript
 * workers through tsx as the service's own thread pools do.
 */
import { Piscina } from 'piscina';
import { tsxWorkerExecArgv } from '../../server/tsx-worker.js';
import type { SearchMode } from '../../server/ports/search-index.js';
import type { PassRequest, PassResult } from './load-protocol.js';

export type { PassResult } from './load-protocol.js';

/** Results per search. */
export const K = 10;

export function searchPath(q: string, mode: SearchMode): string {
  return `/memories/search?q=${encodeURIComponent(q)}&mode=${encodeURIComponent(mode)}&k=${K}`;
}

export class LoadGenerator {
  private readonly pool = new Piscina<PassRequest, PassResult>({
    filename: new URL('./load-worker.ts', import.meta.url).href,
    execArgv: tsxWorkerExecArgv(),
    minThreads: 1,
    maxThreads: 1,
    idleTimeout: Number.POSITIVE_INFINITY,
  });
  private running = false;

  /** One pass at a time: `warmup` paths (not timed), then `paths` timed. */
  async run(port: number, key: string, paths: string[], warmup: string[], concurrency: number): Promise<PassResult> {
    if (this.running) throw new Error('a pass is already running');
    this.running = true;
    try {
      return await this.pool.run({ port, key, paths, warmup, concurrency });
    } finally {
      this.running = false;
    }
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
