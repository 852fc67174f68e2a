/**
 * Every background job a service may enqueue: its stable name and the schema of its payload. Services
 * enqueue through the `Scheduler` port with one of these; `jobs/definitions/` binds each to its handler
 * (the compiler refuses an entry without one). Adding a job: one entry here, one handler there.
 *
 * Names are stored with every job, so never rename a live one. Payloads are JSON: ids and small
 * values, never secrets (they sit in the job store and in logs of failures).
 */
import { z } from 'zod';

/** A job as services name it; checked by the compiler at the call and by the schema when enqueued and when run. */
export interface JobSpec<N extends string = string, S extends z.ZodType = z.ZodType> {
  readonly name: N;
  readonly payload: S;
}

const job = <const N extends string, S extends z.ZodType>(name: N, payload: S): JobSpec<N, S> => ({ name, payload });

/** Drains a tenant's queued memory writes; `slot` only makes the unique key of one enqueue (jobs of one tenant differ by it). */
export const consolidateWritesJob = job(
  'memory.consolidate-writes',
  z.object({ tenantId: z.string().min(1).max(200), slot: z.number().int().min(0).optional() }),
);

/** Re-triggers consolidation of every tenant with queued writes, and purges expired idempotency records. */
export const consolidationSweepJob = job('memory.consolidation-sweep', z.object({}).optional());

/**
 * Applies to the search index what the index outbox still holds (server profile: after a Qdrant outage,
 * a crash, or entries that failed), for every tenant with pending entries.
 */
export const drainIndexOutboxJob = job('search.drain-index-outbox', z.object({}).optional());

/** One enrichment run of a knowledge object: `runId` is the hold the trigger set (a stale job finds another and stops). */
export const enrichKnowledgeJob = job(
  'knowledge.enrich',
  z.object({
    tenantId: z.string().min(1).max(200),
    objectId: z.string().min(1).max(128),
    runId: z.string().min(1).max(128),
    /** The memory namespaces of the key that triggered the run (null: all). */
    namespaces: z.array(z.string().min(1).max(200)).max(100).nullable().default(null),
  }),
);

/**
 * Re-enrichment of a knowledge object a consolidated memory names, debounced per object. `after`: the
 * run the job waits behind ('' when none; the run id with a trailing '+' for a second look behind the
 * same run), part of the unique key so a mention during a run is not absorbed by a job already running.
 */
export const refreshKnowledgeJob = job(
  'knowledge.refresh',
  z.object({
    tenantId: z.string().min(1).max(200),
    objectId: z.string().min(1).max(128),
    after: z.string().max(128).default(''),
  }),
);

/** Purges sessions that ended over a day ago and closed sign-in throttle windows. */
export const purgeEndedJob = job('maintenance.purge-ended', z.object({}).optional());

/** Purges, per tenant, what its retention settings no longer keep (superseded memory versions). */
export const enforceRetentionJob = job('maintenance.retention', z.object({}).optional());

export const jobCatalogue = {
  consolidateWrites: consolidateWritesJob,
  consolidationSweep: consolidationSweepJob,
  drainIndexOutbox: drainIndexOutboxJob,
  purgeEnded: purgeEndedJob,
  enforceRetention: enforceRetentionJob,
  enrichKnowledge: enrichKnowledgeJob,
  refreshKnowledge: refreshKnowledgeJob,
} as const;

export type JobCatalogue = typeof jobCatalogue;
/** Any job of the catalogue. */
export type CatalogueJob = JobCatalogue[keyof JobCatalogue];
