/**
 * The shape of a background job. A definition is a catalogue job (`server/jobs/catalogue.ts`: name
 * and payload schema) bound to its run options and handler; `jobs/agenda.ts` turns it into an
 * Agenda 6 definition in both storage profiles, with the same retry policy, payload validation and
 * logging.
 *
 * Adding a job (see also `jobs/README.md`): an entry in the catalogue, then
 *
 * ```ts
 * // jobs/definitions/enrich-object.ts
 * export const enrichObject = bindJob(enrichObjectJob, {
 *   concurrency: 2,
 *   retry: { attempts: 5, baseMs: 1_000 },
 *   async handler({ tenantId, objectId }, services, job) {
 *     await services.knowledge.enrich(tenantId, objectId);
 *   },
 * });
 * ```
 *
 * and its entry in `jobs/definitions/index.ts`. Services enqueue it through the `Scheduler` port:
 * `scheduler.now(enrichObjectJob, { tenantId, objectId })`.
 */
import type { z } from 'zod';
import type { JobSpec } from '../server/jobs/catalogue.js';
import type { Logger } from '../server/logger.js';
import type { JobServices } from './context.js';

export interface RetryPolicy {
  /** Total runs before the job is marked failed: the first run plus `attempts - 1` retries. */
  attempts: number;
  /** Delay before the first retry; each further retry doubles it. */
  baseMs: number;
  /** Upper bound of one delay. Default 10 minutes. */
  maxMs?: number;
  /** Random spread of each delay, 0..1 (0.2 = ±20%). Default 0.2. */
  jitter?: number;
}

export const DEFAULT_RETRY: Required<RetryPolicy> = { attempts: 5, baseMs: 1_000, maxMs: 10 * 60_000, jitter: 0.2 };

/** What a handler learns about the run besides its payload. */
export interface JobRunContext {
  id: string;
  name: string;
  /** 1 for the first run, 2 for the first retry, … */
  attempt: number;
  /** A child logger bound to the job's name, id and attempt. */
  logger: Logger;
  /**
   * Renews the lock (and records progress, 0–100). A handler that may run longer than its lock
   * lifetime must call this periodically, or another worker will take the job over.
   */
  touch(progress?: number): Promise<void>;
  /** True once Agenda gave up on this run (lock lifetime exceeded): stop early, the job will run again. */
  isCanceled(): boolean;
}

export interface JobDefinition<S extends z.ZodType = z.ZodType, Ctx = JobServices> {
  /** Unique, stable name (`area.verb-noun`); it is stored with every job, so never rename a live one. */
  name: string;
  /** Schema of the payload: checked when the job is enqueued and again when it runs. */
  payload: S;
  /** Runs of this job at once in one worker process. Default 5. */
  concurrency?: number;
  /**
   * How long a worker may hold the job before another worker may take it over (a worker that died
   * holds it until then). Default 10 minutes. Keep it above the longest run, or call `touch()`.
   */
  lockLifetimeMs?: number;
  priority?: 'lowest' | 'low' | 'normal' | 'high' | 'highest' | number;
  /** Retries with exponential backoff and jitter; `false` fails on the first error. Default `DEFAULT_RETRY`. */
  retry?: RetryPolicy | false;
  /** Keep one-time jobs after they succeed (default: removed, so the store does not grow). */
  keepCompleted?: boolean;
  /**
   * Makes this a recurring job: every process that starts workers (re)schedules it with
   * `jobs.every(interval, name, payload)` — one schedule row per name across all processes.
   * `interval` is milliseconds, a human interval (`'10 seconds'`) or a cron expression.
   */
  every?: { interval: string | number; payload: z.input<S>; skipImmediate?: boolean; timezone?: string };
  /**
   * Does the work. Throwing fails the run: it is retried per `retry`, except for `PermanentJobError`
   * (and an invalid payload), which fail the job at once. Must be idempotent: after a crash the same
   * job can run again.
   */
  handler(payload: z.output<S>, services: Ctx, job: JobRunContext): Promise<void>;
}

/** A definition of any payload, as the registry holds them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds every payload type; `unknown` would not accept them (handler parameters are contravariant)
export type AnyJobDefinition<Ctx = JobServices> = JobDefinition<any, Ctx>;

/** Binds a catalogue job to its run options and handler; the handler's payload is typed by the job's schema. */
export function bindJob<const N extends string, S extends z.ZodType, Ctx = JobServices>(
  job: JobSpec<N, S>,
  binding: Omit<JobDefinition<S, Ctx>, 'name' | 'payload'>,
): JobDefinition<S, Ctx> & { name: N } {
  return { ...binding, name: job.name, payload: job.payload };
}

/** Throw from a handler for a failure that retrying cannot fix: the job is marked failed at once. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}
