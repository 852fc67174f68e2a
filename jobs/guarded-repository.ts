import type {
  JobId,
  JobParameters,
  JobRepository,
  JobRepositoryOptions,
  JobsOverview,
  JobsQueryOptions,
  JobsResult,
  RemoveJobsOptions,
} from 'agenda';

/**
 * Wraps any Agenda `JobRepository` (libsql or MongoDB) to make shutdown clean in both profiles:
 *
 * - it records which jobs this process holds locks on (taken by `getNextJobToRun`/`lockJob`, released
 *   when a run saves its state without a lock, or on unlock/removal), so a graceful stop can wait until
 *   every held job is finished or handed back;
 * - once `close()`d it takes no new locks, and a lock that was still in flight when it closed is handed
 *   back at once — Agenda's own `stop()` cannot stop a queue fill that is already running;
 * - handing a lock back never strands a job: a job taken over from a dead worker has no `nextRunAt`
 *   (its one-time run had started), so a plain unlock would leave it neither locked nor due, forever.
 *   Such a job is handed back due now instead;
 * - a one-time job that succeeded counts as held until Agenda has removed it (`removeOnComplete`),
 *   so a process that stops right after a run does not exit between the two writes.
 *
 * Everything else passes straight through.
 */
export class GuardedJobRepository implements JobRepository {
  private open = true;
  /** Jobs this process holds locks on, as they were when locked. */
  private readonly held = new Map<string, JobParameters>();
  private waiters: Array<() => void> = [];
  private failure: unknown;

  /**
   * @param removedOnSuccess whether Agenda removes a succeeded one-time job of this name
   *   (its `removeOnComplete`); such a job stays held until the removal (or `removalGraceMs`).
   */
  constructor(
    private readonly inner: JobRepository,
    private readonly removedOnSuccess: (name: string) => boolean = () => false,
    private readonly removalGraceMs = 5_000,
  ) {}

  /** Makes every later call fail with `err` (the backend could not connect). */
  fail(err: unknown): void {
    this.failure = err;
  }

  private check(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** Stop taking locks. */
  close(): void {
    this.open = false;
  }

  reopen(): void {
    this.open = true;
  }

  /** Ids of the jobs this process holds locks on. */
  heldIds(): string[] {
    return [...this.held.keys()];
  }

  /** Resolves true when no lock is held, or false after `timeoutMs`. */
  whenReleased(timeoutMs: number): Promise<boolean> {
    if (this.held.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(done);
    });
  }

  private release(id: string | undefined): void {
    if (id === undefined || !this.held.delete(id)) return;
    if (this.held.size === 0) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    }
  }

  private async took(job: JobParameters | undefined): Promise<JobParameters | undefined> {
    if (!job?._id) return job;
    const id = String(job._id);
    this.held.set(id, job);
    if (!this.open) {
      // Locked after close() began: hand it straight back.
      await this.unlockJobs([id]);
      return undefined;
    }
    return job;
  }

  async connect(): Promise<void> {
    await this.inner.connect();
  }

  async getNextJobToRun(
    jobName: string,
    nextScanAt: Date,
    lockDeadline: Date,
    now: Date | undefined,
    options: JobRepositoryOptions | undefined,
  ): Promise<JobParameters | undefined> {
    this.check();
    if (!this.open) return undefined;
    return this.took(await this.inner.getNextJobToRun(jobName, nextScanAt, lockDeadline, now, options));
  }

  async lockJob(job: JobParameters, options: JobRepositoryOptions | undefined): Promise<JobParameters | undefined> {
    this.check();
    if (!this.open) return undefined;
    return this.took(await this.inner.lockJob(job, options));
  }

  async saveJobState(job: JobParameters, options: JobRepositoryOptions | undefined): Promise<void> {
    this.check();
    try {
      await this.inner.saveJobState(job, options);
    } finally {
      if (!job.lockedAt && job._id !== undefined) {
        const id = String(job._id);
        if (job.nextRunAt == null && succeeded(job) && this.removedOnSuccess(job.name) && this.held.has(id)) {
          // Agenda removes it next; removeJobs() releases it. The timer covers a removal that fails.
          setTimeout(() => this.release(id), this.removalGraceMs).unref();
        } else this.release(id);
      }
    }
  }

  async unlockJob(job: JobParameters): Promise<void> {
    this.check();
    await this.inner.unlockJob(job);
    this.release(job._id === undefined ? undefined : String(job._id));
  }

  async unlockJobs(jobIds: (JobId | string)[]): Promise<void> {
    this.check();
    const plain: string[] = [];
    for (const raw of jobIds) {
      const id = String(raw);
      const snapshot = this.held.get(id);
      if (snapshot && snapshot.nextRunAt === null) {
        // Taken over from a dead worker: hand it back due now (see class comment).
        try {
          await this.inner.saveJobState(
            { ...snapshot, lockedAt: undefined, nextRunAt: new Date() },
            { lastModifiedBy: snapshot.lastModifiedBy },
          );
        } catch {
          // Removed meanwhile: nothing to hand back.
        }
      } else plain.push(id);
    }
    if (plain.length > 0) await this.inner.unlockJobs(plain);
    for (const id of jobIds) this.release(String(id));
  }

  async removeJobs(options: RemoveJobsOptions): Promise<number> {
    this.check();
    const n = await this.inner.removeJobs(options);
    if (options.id !== undefined) this.release(String(options.id));
    for (const id of options.ids ?? []) this.release(String(id));
    return n;
  }

  async queryJobs(options?: JobsQueryOptions): Promise<JobsResult> {
    this.check();
    return this.inner.queryJobs(options);
  }

  async getJobsOverview(): Promise<JobsOverview[]> {
    this.check();
    return this.inner.getJobsOverview();
  }

  async getDistinctJobNames(): Promise<string[]> {
    this.check();
    return this.inner.getDistinctJobNames();
  }

  async getJobById(id: string): Promise<JobParameters | null> {
    this.check();
    return this.inner.getJobById(id);
  }

  async getQueueSize(): Promise<number> {
    this.check();
    return this.inner.getQueueSize();
  }

  async saveJob<DATA = unknown>(job: JobParameters<DATA>, options: JobRepositoryOptions | undefined): Promise<JobParameters<DATA>> {
    this.check();
    return this.inner.saveJob(job, options);
  }

  async disableJobs(options: RemoveJobsOptions): Promise<number> {
    this.check();
    return this.inner.disableJobs(options);
  }

  async enableJobs(options: RemoveJobsOptions): Promise<number> {
    this.check();
    return this.inner.enableJobs(options);
  }

  async purgeAllJobs(): Promise<number> {
    this.check();
    return this.inner.purgeAllJobs();
  }
}

/** Agenda's notion of a run that succeeded: it finished after its last failure (a failure sets both at once). */
function succeeded(job: JobParameters): boolean {
  return job.lastFinishedAt !== undefined && (job.failedAt === undefined || new Date(job.failedAt) < new Date(job.lastFinishedAt));
}
