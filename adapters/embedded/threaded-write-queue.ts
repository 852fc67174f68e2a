import { Piscina } from 'piscina';
import type { EnqueueRequest, EnqueueResult, WriteQueue } from '../../server/ports/write-queue.js';
import { tsxWorkerExecArgv } from '../threads/tsx-worker.js';
import type { Logger } from '../../server/logger.js';
import type { EmbeddedDatabase } from './database.js';
import { createEmbeddedWriteQueue, MAX_GROUP } from './write-queue.js';
import type { ThreadedEnqueue, ThreadedOutcome } from './write-queue-worker.js';

interface Waiting extends ThreadedEnqueue {
  resolve: (r: EnqueueResult) => void;
  reject: (e: unknown) => void;
}

/**
 * The embedded write queue with its transactions on a thread of their own (`write-queue-worker.ts`,
 * a second connection to the same file): the event loop that serves HTTP hands each batch of writes
 * over and answers every caller once the thread has committed it, exactly as the in-thread queue does.
 *
 * Why: queueing a write is ~0.15 ms of SQLite work out of ~0.6 ms of server time, and on one process
 * the event loop's thread is the bottleneck while the second core is partly idle (+~13% accepted
 * writes/s on two cores). Why it is opt-in (`WRITE_QUEUE_THREAD`): the caller's connection still
 * writes (usage counters, consolidation, the job store), and while this thread holds the write lock such a write
 * waits in SQLite's busy handler, which sleeps at least 1 ms on the caller's thread.
 *
 * Batches: while one is being committed, the writes that arrive wait and go over together as the next
 * (group commit again, sized by how long a commit takes). Order is kept: batches go in arrival order,
 * one at a time, and the thread applies each in order. Reads (`peek`, counts) stay on the caller's
 * connection.
 */
export class ThreadedWriteQueue implements WriteQueue {
  private readonly pool: Piscina<ThreadedEnqueue[], ThreadedOutcome[]>;
  private readonly reads: WriteQueue;
  private waiting: Waiting[] = [];
  private inFlight: Promise<void> | null = null;
  private scheduled = false;
  private closed = false;

  constructor(db: EmbeddedDatabase, file: string, logger?: Pick<Logger, 'error'>) {
    this.reads = createEmbeddedWriteQueue(db);
    this.pool = new Piscina<ThreadedEnqueue[], ThreadedOutcome[]>({
      filename: new URL('./write-queue-worker.ts', import.meta.url).href,
      execArgv: tsxWorkerExecArgv(),
      workerData: { file },
      // Started by the first write (a process that only reads or consolidates never starts it), then kept.
      minThreads: 0,
      maxThreads: 1,
      concurrentTasksPerWorker: 1,
      idleTimeout: Number.POSITIVE_INFINITY,
    });
    // A task's failure reaches its callers as that task's rejection. The pool's own 'error' (a thread
    // that failed with no task in flight) is logged: unhandled, it would take the serving process down.
    this.pool.on('error', (err: unknown) => logger?.error({ err }, 'write-queue thread failed'));
  }

  enqueue(tenantId: string, request: EnqueueRequest): Promise<EnqueueResult> {
    if (this.closed) return Promise.reject(new Error('the write queue is closed'));
    return new Promise<EnqueueResult>((resolve, reject) => {
      this.waiting.push({ tenantId, request, resolve, reject });
      // Writes parsed in the same turn of the event loop go over together.
      if (!this.inFlight && !this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.send();
        });
      }
    });
  }

  private send(): void {
    if (this.inFlight || this.waiting.length === 0) return;
    // At most one group per hand-over, so the first callers are not kept waiting for later groups.
    const batch = this.waiting.splice(0, MAX_GROUP);
    this.inFlight = this.pool
      .run(batch.map(({ tenantId, request }) => ({ tenantId, request })))
      .then(
        (outcomes) => {
          if (outcomes.length !== batch.length) throw new Error(`write-queue thread answered ${outcomes.length} outcomes for ${batch.length} writes`);
          outcomes.forEach((o, i) => (o.ok ? batch[i]!.resolve(o.result) : batch[i]!.reject(Object.assign(new Error(o.error.message), o.error))));
        },
      )
      .catch((error: unknown) => {
        for (const w of batch) w.reject(error);
      })
      .finally(() => {
        this.inFlight = null;
        this.send();
      });
  }

  peek(tenantId: string, limit: number) {
    return this.reads.peek(tenantId, limit);
  }

  tenantsWithPending(limit: number) {
    return this.reads.tenantsWithPending(limit);
  }

  pendingCount(tenantId: string) {
    return this.reads.pendingCount(tenantId);
  }

  /** Refuses new writes, waits for every handed-over write to be answered, then ends the thread. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.inFlight || this.waiting.length > 0) {
      if (!this.inFlight) this.send();
      await this.inFlight;
    }
    await this.pool.destroy();
  }
}
