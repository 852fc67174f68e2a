import type { z } from 'zod';

/**
 * The durable job queue as services see it (implemented over Agenda 6 in `jobs/agenda.ts`, on the
 * embedded libsql file or on MongoDB — the caller cannot tell which).
 *
 * Payloads are validated against the job definition's zod schema when enqueued (a bad payload throws
 * `JobPayloadError`, a programming error, never a client error) and again when run. Payloads must be
 * JSON: ids and small values, never secrets (they sit in the job store and in logs of failures).
 */
export interface JobQueue {
  /** Runs the job as soon as a worker is free. */
  now<S extends z.ZodType>(job: JobRef<S>, payload: z.input<S>, options?: EnqueueOptions): Promise<QueuedJob>;
  /**
   * Runs the job repeatedly: `interval` in milliseconds, a human interval (`'5 minutes'`) or a cron
   * expression. One row per job name across all processes: calling it again (e.g. at every start-up)
   * updates the schedule instead of adding a second one.
   */
  every<S extends z.ZodType>(interval: string | number, job: JobRef<S>, payload: z.input<S>, options?: RepeatOptions): Promise<QueuedJob>;
  /** Removes matching jobs that have not started (and any finished or failed ones). Returns how many. */
  cancel(selection: JobSelection): Promise<number>;
  /** One job's state, or null when it does not exist (completed one-time jobs are removed). */
  get(id: string): Promise<JobStatus | null>;
  /** Jobs per state, optionally of one name. */
  counts(name?: string): Promise<JobCounts>;
}

/** A job is named by its registered name, or by its definition (which also types the payload). */
export type JobRef<S extends z.ZodType = z.ZodType> = string | { readonly name: string; readonly payload: S };

export type JobPriority = 'lowest' | 'low' | 'normal' | 'high' | 'highest' | number;

export interface EnqueueOptions {
  /**
   * At most one stored job with these payload values (keys are payload field paths, e.g.
   * `{ tenantId }`). With `insertOnly` an existing job is left as it is; otherwise it is replaced
   * (payload and schedule). A job that is already running counts as existing: handlers that coalesce
   * work this way must drain everything pending when they run.
   */
  unique?: Record<string, string | number | boolean | null>;
  insertOnly?: boolean;
  /** With `unique`: push the run back by this many ms on every enqueue (trailing debounce)… */
  debounceMs?: number;
  /** …but run no later than this many ms after the first enqueue of the burst. */
  maxWaitMs?: number;
  priority?: JobPriority;
}

export interface RepeatOptions {
  /** Wait one interval before the first run. */
  skipImmediate?: boolean;
  /** IANA zone for cron expressions. */
  timezone?: string;
  priority?: JobPriority;
}

export interface JobSelection {
  id?: string;
  name?: string;
  /** Matches jobs whose payload has these values (nested objects match field by field). */
  payload?: Record<string, unknown>;
}

export interface QueuedJob {
  id: string;
  name: string;
  /** When it will run; null once it runs (one-time jobs) or when it will not run again. */
  nextRunAt: Date | null;
}

/**
 * - `queued`: due, waiting for a worker; `scheduled`: due later; `running`: locked by a worker;
 * - `retrying`: failed, another attempt is scheduled; `failed`: failed and will not run again;
 * - `repeating`: a repeating job between runs; `completed`: finished (kept only when the definition
 *   asks to keep completed jobs); `paused`: disabled.
 */
export type JobState = 'queued' | 'scheduled' | 'running' | 'retrying' | 'failed' | 'repeating' | 'completed' | 'paused';

export interface JobStatus {
  id: string;
  name: string;
  state: JobState;
  payload: unknown;
  /** Failed attempts so far (reset by a success). */
  failCount: number;
  failReason: string | null;
  nextRunAt: Date | null;
  /** When a worker locked it (null when not locked). */
  lockedAt: Date | null;
  lastRunAt: Date | null;
  lastFinishedAt: Date | null;
}

export type JobCounts = Record<JobState, number> & { total: number };

/** Thrown by `JobQueue` when a payload does not match the job's schema, or the job is unknown. */
export class JobPayloadError extends Error {
  override name = 'JobPayloadError';
}
