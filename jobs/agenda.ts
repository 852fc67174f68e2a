/**
 * The job queue of both storage profiles: Agenda 6 over the embedded libsql file
 * (`jobs/embedded-backend/`) or over MongoDB (`@agendajs/mongo-backend`), behind the `JobQueue` port.
 * Services enqueue; workers (in-process, or the separate `tenant-memory worker`) run the definitions.
 * The same definitions, payload validation, retry policy and logging apply in both profiles.
 *
 * Lifecycle: `createJobQueue` → `define()` every definition (in every process, including ones that only
 * enqueue, since enqueueing validates payloads) → `ready()` → `start()` in processes that run jobs →
 * `stop()` (graceful: stop taking jobs, let running ones finish up to a timeout, hand back the rest).
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { MongoBackend } from '@agendajs/mongo-backend';
import type { Db } from 'mongodb';
import {
  Agenda,
  InMemoryNotificationChannel,
  computeJobState,
  exponential,
  type AgendaBackend,
  type BackoffStrategy,
  type Job,
  type JobParameters,
} from 'agenda';
import type { z } from 'zod';
import type { JobDatabase } from './embedded-backend/job-database.js';
import type { Logger } from '../server/logger.js';
import {
  JobPayloadError,
  type EnqueueOptions,
  type JobCounts,
  type JobQueue,
  type JobRef,
  type JobSelection,
  type JobState,
  type JobStatus,
  type QueuedJob,
  type RepeatOptions,
} from '../server/ports/job-queue.js';
import { DEFAULT_RETRY, PermanentJobError, type AnyJobDefinition, type JobRunContext, type RetryPolicy } from './definition.js';
import { EmbeddedAgendaBackend } from './embedded-backend/backend.js';
import { GuardedJobRepository } from './guarded-repository.js';

/**
 * Where a storage profile keeps its jobs: the profile (`server/profiles/`) names it and only the
 * composition root hands it here, so the `JobQueue` port never learns the backend.
 */
export type JobStore = { profile: 'embedded'; db: JobDatabase } | { profile: 'mongo'; mongoDb: Db; collection?: string };

export interface JobQueueOptions<Ctx> {
  logger: Logger;
  /** What handlers receive as `services` (called at run time, so the container can be finished later). */
  context: () => Ctx;
  /** Identifies this process in the job store (`lastModifiedBy`). Default `<host>:<pid>:<random>`. */
  workerName?: string;
  /** How often a worker polls the store for due jobs. Default 1000 ms. */
  processEveryMs?: number;
  /** Lock lifetime of definitions that set none. Default 10 minutes (Agenda's default). */
  lockLifetimeMs?: number;
  /** Jobs running at once in this process, all names together. Default 20. */
  maxConcurrency?: number;
  /** Jobs of one name this process may hold locked (running or waiting) at once; 0 = no limit (Agenda's default). */
  lockLimit?: number;
  /** How long `stop()` waits for running jobs by default. Default 30 s. */
  stopTimeoutMs?: number;
}

export interface StopResult {
  /** True when every job this process held finished or was handed back. */
  finished: boolean;
  /** Ids of jobs still running when the timeout hit; their locks expire and another worker retries them. */
  unfinished: string[];
}

const PATH = /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;

/** The Agenda-backed `JobQueue`, plus the worker lifecycle the composition root and runner use. */
export class AgendaJobQueue<Ctx = unknown> implements JobQueue {
  readonly workerName: string;
  readonly backendName: string;
  private readonly agenda: Agenda;
  private readonly repository: GuardedJobRepository;
  private readonly definitions = new Map<string, AnyJobDefinition<Ctx>>();
  private readonly logger: Logger;
  private readonly connected: Promise<void>;
  private readonly stopTimeoutMs: number;
  private processing = false;
  private stopping: Promise<StopResult> | undefined;

  constructor(
    backend: AgendaBackend,
    connect: () => Promise<void>,
    private readonly options: JobQueueOptions<Ctx>,
  ) {
    this.workerName = options.workerName ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.backendName = backend.name;
    this.logger = options.logger.child({ component: 'jobs', worker: this.workerName });
    this.stopTimeoutMs = options.stopTimeoutMs ?? 30_000;
    this.repository = new GuardedJobRepository(
      backend.repository,
      (name) => this.definitions.has(name) && !this.definitions.get(name)!.keepCompleted,
    );
    // Connect before Agenda sees the backend: Agenda's constructor calls connect() without a catch
    // (docs/decisions.md#engines), so its connect() must never reject. A failure surfaces from ready() and every call.
    this.connected = connect().catch((err: unknown) => {
      this.repository.fail(err);
      throw err;
    });
    this.connected.catch(() => undefined);
    const guarded: AgendaBackend = {
      name: backend.name,
      repository: this.repository,
      ownsConnection: false,
      connect: () => this.connected.catch(() => undefined),
      disconnect: async () => undefined,
    };
    this.agenda = new Agenda({
      backend: guarded,
      name: this.workerName,
      processEvery: options.processEveryMs ?? 1_000,
      defaultLockLifetime: options.lockLifetimeMs ?? 10 * 60_000,
      maxConcurrency: options.maxConcurrency ?? 20,
      defaultLockLimit: options.lockLimit ?? 0,
      defaultConcurrency: 5,
      // Jobs enqueued by this process reach its own workers at once instead of at the next poll.
      notificationChannel: new InMemoryNotificationChannel(),
    });
    this.listen();
  }

  /** Resolves once the store is reachable; rejects with the connection error otherwise. */
  async ready(): Promise<void> {
    await this.connected;
    await this.agenda.ready;
  }

  /** Registers a definition (before `start()`). Every process that enqueues or runs it must define it. */
  define(definition: AnyJobDefinition<Ctx>): this {
    if (this.definitions.has(definition.name)) throw new Error(`job ${definition.name} is defined twice`);
    this.definitions.set(definition.name, definition);
    this.agenda.define(definition.name, (job: Job<unknown>) => this.runHandler(definition, job), {
      concurrency: definition.concurrency,
      lockLifetime: definition.lockLifetimeMs,
      priority: definition.priority,
      backoff: backoffFor(definition.retry),
      removeOnComplete: !definition.keepCompleted,
    });
    return this;
  }

  defineAll(definitions: readonly AnyJobDefinition<Ctx>[]): this {
    for (const d of definitions) this.define(d);
    return this;
  }

  /** Names of the registered definitions. */
  names(): string[] {
    return [...this.definitions.keys()];
  }

  /** Starts running jobs in this process and (re)schedules the recurring definitions. Idempotent. */
  async start(): Promise<void> {
    if (this.stopping) await this.stopping;
    if (this.processing) return;
    await this.ready();
    this.repository.reopen();
    await this.agenda.start();
    this.processing = true;
    for (const d of this.definitions.values()) {
      if (d.every)
        await this.every(d.every.interval, d.name, d.every.payload, { skipImmediate: d.every.skipImmediate, timezone: d.every.timezone });
    }
    this.logger.info({ backend: this.backendName, jobs: this.names() }, 'job workers started');
  }

  get isProcessing(): boolean {
    return this.processing;
  }

  /**
   * Graceful stop: take no new jobs, hand back jobs locked but not started, wait up to `timeoutMs`
   * for running ones to finish. A job still running after that keeps its lock until it expires, then
   * another worker runs it again (so handlers must be idempotent). Safe to call more than once.
   */
  stop(timeoutMs: number = this.stopTimeoutMs): Promise<StopResult> {
    if (!this.processing) return this.stopping ?? Promise.resolve({ finished: true, unfinished: [] });
    this.stopping ??= (async () => {
      this.repository.close();
      await this.agenda.stop(false);
      const finished = await this.repository.whenReleased(timeoutMs);
      const unfinished = this.repository.heldIds();
      this.processing = false;
      this.stopping = undefined;
      if (finished) this.logger.info('job workers stopped');
      else this.logger.warn({ unfinished }, 'job workers stopped with jobs still running; their locks will expire');
      return { finished, unfinished };
    })();
    return this.stopping;
  }

  async now<S extends z.ZodType>(job: JobRef<S>, payload: z.input<S>, options: EnqueueOptions = {}): Promise<QueuedJob> {
    return this.enqueue(job, payload, new Date(), options);
  }

  async every<S extends z.ZodType>(
    interval: string | number,
    job: JobRef<S>,
    payload: z.input<S>,
    options: RepeatOptions = {},
  ): Promise<QueuedJob> {
    const { name, data } = this.validated(job, payload);
    await this.ready();
    const created = this.agenda.create(name, data);
    created.attrs.type = 'single';
    created.repeatEvery(interval, { timezone: options.timezone, skipImmediate: options.skipImmediate });
    if (options.priority !== undefined) created.priority(options.priority);
    await created.save();
    return queued(created.attrs);
  }

  async cancel(selection: JobSelection): Promise<number> {
    await this.ready();
    if (selection.id === undefined && selection.name === undefined && selection.payload === undefined) return 0;
    return this.agenda.cancel({ id: selection.id, name: selection.name, data: selection.payload });
  }

  async get(id: string): Promise<JobStatus | null> {
    await this.ready();
    let attrs: JobParameters | null;
    try {
      attrs = await this.repository.getJobById(id);
    } catch {
      return null; // not an id this store can hold (e.g. not an ObjectId on MongoDB)
    }
    return attrs ? status(attrs) : null;
  }

  async counts(name?: string): Promise<JobCounts> {
    await this.ready();
    const { jobs } = await this.repository.queryJobs(name ? { name } : {});
    const counts: JobCounts = {
      queued: 0,
      scheduled: 0,
      running: 0,
      retrying: 0,
      failed: 0,
      repeating: 0,
      completed: 0,
      paused: 0,
      total: 0,
    };
    for (const j of jobs) {
      counts[stateOf(j)]++;
      counts.total++;
    }
    return counts;
  }

  private validated<S extends z.ZodType>(job: JobRef<S>, payload: unknown): { name: string; data: unknown } {
    const name = typeof job === 'string' ? job : job.name;
    const definition = this.definitions.get(name);
    if (!definition) throw new JobPayloadError(`unknown job ${JSON.stringify(name)}: define it in jobs/definitions/index.ts`);
    const parsed = definition.payload.safeParse(payload);
    if (!parsed.success) throw new JobPayloadError(`invalid payload for job ${name}: ${describeIssues(parsed.error)}`);
    let data: unknown;
    try {
      // Both profiles store exactly the JSON form, so a payload reads back the same on either.
      data = payload === undefined ? undefined : JSON.parse(JSON.stringify(payload));
    } catch {
      throw new JobPayloadError(`payload of job ${name} is not JSON-serialisable`);
    }
    return { name, data };
  }

  private async enqueue<S extends z.ZodType>(job: JobRef<S>, payload: unknown, when: Date, options: EnqueueOptions): Promise<QueuedJob> {
    const { name, data } = this.validated(job, payload);
    await this.ready();
    const created = this.agenda.create(name, data);
    created.schedule(when);
    if (options.priority !== undefined) created.priority(options.priority);
    if (options.unique) {
      const key: Record<string, unknown> = {};
      for (const [path, value] of Object.entries(options.unique)) {
        if (!PATH.test(path)) throw new JobPayloadError(`invalid unique key ${JSON.stringify(path)} for job ${name}`);
        key[`data.${path}`] = value;
      }
      created.unique(key, { insertOnly: options.insertOnly });
      if (options.debounceMs !== undefined) created.debounce(options.debounceMs, { maxWait: options.maxWaitMs });
    } else if (options.debounceMs !== undefined || options.insertOnly) {
      throw new JobPayloadError(`job ${name}: insertOnly and debounceMs need a unique key`);
    }
    await created.save();
    return queued(created.attrs);
  }

  private async runHandler(definition: AnyJobDefinition<Ctx>, job: Job<unknown>): Promise<void> {
    const id = String(job.attrs._id);
    const attempt = (job.attrs.failCount ?? 0) + 1;
    const logger = this.logger.child({ job: definition.name, jobId: id, attempt });
    const parsed = definition.payload.safeParse(job.attrs.data);
    if (!parsed.success) throw new PermanentJobError(`invalid payload: ${describeIssues(parsed.error)}`);
    const context: JobRunContext = {
      id,
      name: definition.name,
      attempt,
      logger,
      touch: (progress?: number) => job.touch(progress),
      isCanceled: () => job.getCanceledMessage() !== undefined,
    };
    await definition.handler(parsed.data, this.options.context(), context);
  }

  private listen(): void {
    const log = this.logger;
    this.agenda.on('fail', (err: Error | string, job: Job | { jobName: string }) => {
      if (!('attrs' in job)) return; // remote notification; logged by its own process
      log.warn(
        { job: job.attrs.name, jobId: String(job.attrs._id), failCount: job.attrs.failCount, err: errorText(err) },
        'job run failed',
      );
    });
    this.agenda.on('retry', (job: Job | { jobName: string }, details: { attempt: number; delay: number }) => {
      if (!('attrs' in job)) return;
      log.info(
        { job: job.attrs.name, jobId: String(job.attrs._id), retry: details.attempt, delayMs: details.delay },
        'job retry scheduled',
      );
    });
    this.agenda.on('retry exhausted', (err: Error, job: Job) => {
      log.error(
        { job: job.attrs.name, jobId: String(job.attrs._id), failCount: job.attrs.failCount, err: errorText(err) },
        'job failed permanently',
      );
    });
    this.agenda.on('error', (err: Error) => {
      log.warn({ err: errorText(err) }, 'job processor error');
    });
  }
}

/**
 * Builds the queue over a profile's store. For MongoDB the caller passes an already connected `Db`
 * (its `MongoClient` belongs to the profile). Call `ready()` to learn whether the store is usable.
 */
export function createJobQueue<Ctx>(store: JobStore, options: JobQueueOptions<Ctx>): AgendaJobQueue<Ctx> {
  if (store.profile === 'embedded') {
    const backend = new EmbeddedAgendaBackend(store.db);
    return new AgendaJobQueue(backend, () => backend.connect(), options);
  }
  const backend = new MongoBackend({ mongo: store.mongoDb, collection: store.collection ?? 'agendaJobs' });
  return new AgendaJobQueue(backend, () => backend.connect(), options);
}

/** Exponential backoff with jitter; permanent failures and exhausted attempts stop retrying. */
export function backoffFor(retry: RetryPolicy | false | undefined): BackoffStrategy {
  if (retry === false) return () => null;
  const policy = { ...DEFAULT_RETRY, ...retry };
  const strategy = exponential({
    delay: policy.baseMs,
    factor: 2,
    maxDelay: policy.maxMs,
    maxRetries: Math.max(0, policy.attempts - 1),
    jitter: policy.jitter,
  });
  return (ctx) => (ctx.error instanceof PermanentJobError ? null : strategy(ctx));
}

function stateOf(attrs: JobParameters): JobState {
  if (attrs.disabled) return 'paused';
  const s = computeJobState(attrs);
  if (s === 'failed' && attrs.nextRunAt) return attrs.repeatInterval || attrs.repeatAt ? 'repeating' : 'retrying';
  return s === 'paused' ? 'paused' : s;
}

function status(attrs: JobParameters): JobStatus {
  return {
    id: String(attrs._id),
    name: attrs.name,
    state: stateOf(attrs),
    payload: attrs.data,
    failCount: attrs.failCount ?? 0,
    failReason: attrs.failReason ?? null,
    nextRunAt: attrs.nextRunAt ?? null,
    lockedAt: attrs.lockedAt ?? null,
    lastRunAt: attrs.lastRunAt ?? null,
    lastFinishedAt: attrs.lastFinishedAt ?? null,
  };
}

function queued(attrs: JobParameters): QueuedJob {
  return { id: String(attrs._id), name: attrs.name, nextRunAt: attrs.nextRunAt ?? null };
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ');
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
