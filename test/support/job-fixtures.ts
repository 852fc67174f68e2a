/**
 * Job definitions shared by the job-queue tests and the child worker process they spawn
 * (`test/support/job-worker.ts`), so both sides run identical definitions over the same store.
 * Handlers report what happened through the context (`record`), which the parent collects in memory
 * and the child prints as JSON lines.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { PermanentJobError, type AnyJobDefinition, type JobDefinition } from '../../jobs/definition.js';

export interface JobEvent {
  event: string;
  jobId: string;
  worker: string;
  at: number;
  key?: string;
  attempt?: number;
}

export interface TestJobContext {
  worker: string;
  record(e: Omit<JobEvent, 'worker' | 'at'>): void;
  /** Upper bound of `test.sleep` in this process (the parent re-running a crashed job uses 0). */
  maxSleepMs: number;
  /** `test.gate` waits for this before finishing (lets a test hold a job running). */
  gate(jobId: string): Promise<void>;
}

/** A job definition whose handlers take the test context rather than the container's services. */
const testJob = <S extends z.ZodType>(definition: JobDefinition<S, TestJobContext>) => definition;

/** Short, so that lock expiry is observable quickly. */
export const SLEEP_LOCK_MS = 1_500;
export const FAIL_BASE_MS = 80;

export const countJob = testJob({
  name: 'test.count',
  payload: z.object({ key: z.string() }),
  concurrency: 5,
  async handler({ key }, ctx, job) {
    ctx.record({ event: 'ran', jobId: job.id, key, attempt: job.attempt });
  },
});

export const sleepJob = testJob({
  name: 'test.sleep',
  payload: z.object({ sleepMs: z.number().int().min(0), key: z.string().optional() }),
  concurrency: 1,
  lockLifetimeMs: SLEEP_LOCK_MS,
  retry: false,
  async handler({ sleepMs, key }, ctx, job) {
    ctx.record({ event: 'started', jobId: job.id, key });
    const until = Date.now() + Math.min(sleepMs, ctx.maxSleepMs);
    while (Date.now() < until) {
      await sleep(Math.min(50, until - Date.now()));
      // A long job keeps its lock alive, as real handlers must.
      if (sleepMs > SLEEP_LOCK_MS / 2) await job.touch();
    }
    ctx.record({ event: 'finished', jobId: job.id, key });
  },
});

export const failJob = testJob({
  name: 'test.fail',
  payload: z.object({ failTimes: z.number().int(), permanent: z.boolean().default(false) }),
  retry: { attempts: 3, baseMs: FAIL_BASE_MS, jitter: 0 },
  async handler({ failTimes, permanent }, ctx, job) {
    ctx.record({ event: 'attempt', jobId: job.id, attempt: job.attempt });
    if (failTimes < 0 || job.attempt <= failTimes) {
      throw permanent
        ? new PermanentJobError(`permanent failure on attempt ${job.attempt}`)
        : new Error(`failure on attempt ${job.attempt}`);
    }
    ctx.record({ event: 'succeeded', jobId: job.id, attempt: job.attempt });
  },
});

export const gateJob = testJob({
  name: 'test.gate',
  payload: z.object({ key: z.string() }),
  concurrency: 1,
  async handler({ key }, ctx, job) {
    ctx.record({ event: 'started', jobId: job.id, key });
    await ctx.gate(job.id);
    ctx.record({ event: 'finished', jobId: job.id, key });
  },
});

export const repeatJob = testJob({
  name: 'test.repeat',
  payload: z.object({ key: z.string() }),
  async handler({ key }, ctx, job) {
    ctx.record({ event: 'ran', jobId: job.id, key });
  },
});

export const testJobDefinitions: readonly AnyJobDefinition<TestJobContext>[] = [countJob, sleepJob, failJob, gateJob, repeatJob];

/** An in-memory context for the parent process; `events` is what its handlers recorded. */
export function memoryContext(worker: string, opts: { maxSleepMs?: number } = {}) {
  const events: JobEvent[] = [];
  const gates = new Map<string, () => void>();
  const waiting = new Map<string, Promise<void>>();
  const ctx: TestJobContext = {
    worker,
    maxSleepMs: opts.maxSleepMs ?? 60_000,
    record: (e) => events.push({ ...e, worker, at: Date.now() }),
    gate(jobId) {
      let p = waiting.get(jobId);
      if (!p) {
        p = new Promise<void>((resolve) => gates.set(jobId, resolve));
        waiting.set(jobId, p);
      }
      return p;
    },
  };
  return {
    ctx,
    events,
    /** Lets a `test.gate` job finish (now, or as soon as it starts). */
    open(jobId: string) {
      void ctx.gate(jobId);
      gates.get(jobId)!();
    },
  };
}

/** Polls `predicate` until true; fails after `timeoutMs` with `what`. */
export async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
