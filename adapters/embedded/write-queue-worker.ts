import { workerData } from 'piscina';
import type { EnqueueRequest, EnqueueResult } from '../../server/ports/write-queue.js';
import { openEmbeddedConnection } from './database.js';
import { createEmbeddedWriteQueue } from './write-queue.js';

/** One write handed to the write-queue thread. */
export interface ThreadedEnqueue {
  tenantId: string;
  request: EnqueueRequest;
}

/** What the thread answers for one write: its result, or the error it threw (name, message, code). */
export type ThreadedOutcome = { ok: true; result: EnqueueResult } | { ok: false; error: { name: string; message: string; code?: string } };

/**
 * The thread side of `ThreadedWriteQueue`: its own connection to the database file and the same
 * group-committing queue as the in-thread profile, so a batch handed over is one transaction.
 */
const queue = createEmbeddedWriteQueue(openEmbeddedConnection((workerData as { file: string }).file));

export default function run(batch: ThreadedEnqueue[]): Promise<ThreadedOutcome[]> {
  return Promise.all(
    batch.map(({ tenantId, request }) =>
      queue.enqueue(tenantId, request).then(
        (result): ThreadedOutcome => ({ ok: true, result }),
        (error: unknown): ThreadedOutcome => ({ ok: false, error: describe(error) }),
      ),
    ),
  );
}

function describe(error: unknown): { name: string; message: string; code?: string } {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}) };
}
