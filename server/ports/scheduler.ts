import type { z } from 'zod';
import type { CatalogueJob, JobSpec } from '../jobs/catalogue.js';
import type { EnqueueOptions, QueuedJob } from './job-queue.js';

/**
 * How services ask for background work: a job of the catalogue (`server/jobs/catalogue.ts`) and its
 * payload, typed by the job's schema. The job queue (`jobs/agenda.ts`) implements it; each job's
 * handler is bound in `jobs/definitions/`. A bad payload throws `JobPayloadError` (a programming error).
 */
export interface Scheduler {
  /** Runs the job as soon as a worker is free (see `EnqueueOptions` for unique and debounced jobs). */
  now<S extends z.ZodType>(job: JobSpec<CatalogueJob['name'], S>, payload: z.input<S>, options?: EnqueueOptions): Promise<QueuedJob>;
}
