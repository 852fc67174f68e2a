/**
 * Agenda's `JobRepository` over the embedded profile's libsql database (table `agenda_jobs`, migration
 * 20), with the semantics of `@agendajs/mongo-backend`:
 *
 * - **Find-and-lock is one statement.** `getNextJobToRun` and `lockJob` are a single
 *   `UPDATE … WHERE id = (SELECT … LIMIT 1) RETURNING *`. SQLite takes the write lock before the
 *   statement reads, so two Agenda instances — in this process or in another process on the same file
 *   (the separate `tenant-memory worker`) — can never lock the same job: the second writer waits
 *   (`busy_timeout`) and then sees the first one's lock.
 * - **Lock expiry.** A job whose `locked_at` is older than the definition's lock lifetime (Agenda passes
 *   the deadline) is picked up again, whatever its `next_run_at`: this is how a job held by a crashed
 *   (SIGKILLed) worker runs again.
 * - **Multi-statement writes** (`unique()` upserts with debounce) run in `BEGIN IMMEDIATE`
 *   transactions, so their read and write see the same snapshot across processes.
 * - `every()` jobs (type `single`) are unique per name; re-saving one keeps an already due
 *   `next_run_at`, so restarting a process does not postpone or duplicate a repeating job.
 *
 * Deliberate differences from the MongoDB backend, both about not clobbering a running job:
 * re-saving an existing job (by id, by `single` name or by `unique()` key) updates its definition
 * fields and schedule but never resets its lock, run timestamps or failure counters.
 *
 * Payloads (`data`) are stored as JSON: a `Date` inside a payload comes back as its ISO string.
 * The API is synchronous underneath; the methods are `async` only to satisfy the interface.
 */
import { randomUUID } from 'node:crypto';
import {
  computeJobState,
  toJobId,
  type JobId,
  type JobParameters,
  type JobRepository,
  type JobRepositoryOptions,
  type JobsOverview,
  type JobsQueryOptions,
  type JobsResult,
  type JobsSort,
  type JobWithState,
  type RemoveJobsOptions,
} from 'agenda';
import type { JobDatabase } from './job-database.js';
import { dataFilter, selectionFilter, uniqueFilter, type SqlFilter } from './filters.js';

interface JobRow {
  id: string;
  name: string;
  priority: number;
  type: 'normal' | 'single';
  data: string | null;
  next_run_at: number | null;
  locked_at: number | null;
  last_run_at: number | null;
  last_finished_at: number | null;
  failed_at: number | null;
  fail_count: number | null;
  fail_reason: string | null;
  repeat_interval: string | null;
  repeat_timezone: string | null;
  repeat_at: string | null;
  disabled: number;
  progress: number | null;
  fork: number | null;
  last_modified_by: string | null;
  debounce_started_at: number | null;
  start_date: number | null;
  end_date: number | null;
  skip_days: string | null;
}

const ms = (d: Date | string | number | null | undefined): number | null => {
  if (d === null || d === undefined) return null;
  const t = d instanceof Date ? d.getTime() : new Date(d).getTime();
  return Number.isNaN(t) ? null : t;
};
const date = (v: number | null): Date | undefined => (v === null ? undefined : new Date(v));
const json = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));
const parse = (v: string | null): unknown => (v === null ? undefined : JSON.parse(v));

function rowToJob<DATA = unknown>(row: JobRow): JobParameters<DATA> {
  return {
    _id: toJobId(row.id),
    name: row.name,
    priority: row.priority,
    nextRunAt: row.next_run_at === null ? null : new Date(row.next_run_at),
    type: row.type,
    data: (row.data === null ? undefined : JSON.parse(row.data)) as DATA,
    lockedAt: date(row.locked_at),
    lastRunAt: date(row.last_run_at),
    lastFinishedAt: date(row.last_finished_at),
    failedAt: date(row.failed_at),
    failCount: row.fail_count ?? undefined,
    failReason: row.fail_reason ?? undefined,
    repeatInterval: parse(row.repeat_interval) as string | number | undefined,
    repeatTimezone: row.repeat_timezone ?? undefined,
    repeatAt: row.repeat_at ?? undefined,
    disabled: row.disabled === 1 ? true : undefined,
    progress: row.progress ?? undefined,
    fork: row.fork === null ? undefined : row.fork === 1,
    lastModifiedBy: row.last_modified_by ?? undefined,
    debounceStartedAt: date(row.debounce_started_at),
    startDate: date(row.start_date),
    endDate: date(row.end_date),
    skipDays: parse(row.skip_days) as number[] | undefined,
  };
}

/** Column values of a job's definition (what `save()` owns), in `DEFINITION_COLUMNS` order. */
const DEFINITION_COLUMNS = [
  'name',
  'priority',
  'type',
  'data',
  'next_run_at',
  'repeat_interval',
  'repeat_timezone',
  'repeat_at',
  'disabled',
  'fork',
  'last_modified_by',
  'start_date',
  'end_date',
  'skip_days',
] as const;

function definitionValues(job: JobParameters, lastModifiedBy: string | null): unknown[] {
  return [
    job.name,
    job.priority ?? 0,
    job.type ?? 'normal',
    json(job.data),
    ms(job.nextRunAt),
    json(job.repeatInterval),
    job.repeatTimezone ?? null,
    job.repeatAt ?? null,
    job.disabled ? 1 : 0,
    job.fork === undefined ? null : job.fork ? 1 : 0,
    lastModifiedBy,
    ms(job.startDate),
    ms(job.endDate),
    json(job.skipDays),
  ];
}

/** Processor-managed fields: written on insert, and on update only when the caller supplies them. */
const STATE_FIELDS: ReadonlyArray<[keyof JobParameters, string, (v: unknown) => unknown]> = [
  ['lockedAt', 'locked_at', (v) => ms(v as Date)],
  ['lastRunAt', 'last_run_at', (v) => ms(v as Date)],
  ['lastFinishedAt', 'last_finished_at', (v) => ms(v as Date)],
  ['failedAt', 'failed_at', (v) => ms(v as Date)],
  ['failCount', 'fail_count', (v) => v],
  ['failReason', 'fail_reason', (v) => v],
  ['progress', 'progress', (v) => v],
];

/** Order in which due jobs of one name are locked: earliest `nextRunAt` first (a crashed job's null first), then highest priority, as MongoDB. */
const LOCK_ORDER = 'next_run_at ASC, priority DESC';

const DEFAULT_SORT = 'next_run_at DESC, last_run_at DESC';

function orderBy(sort: JobsSort | undefined): string {
  if (!sort) return DEFAULT_SORT;
  const dir = (d: string) => (d === 'asc' ? 'ASC' : 'DESC');
  const parts: string[] = [];
  if (sort.nextRunAt) parts.push(`next_run_at ${dir(sort.nextRunAt)}`);
  if (sort.lastRunAt) parts.push(`last_run_at ${dir(sort.lastRunAt)}`);
  if (sort.lastFinishedAt) parts.push(`last_finished_at ${dir(sort.lastFinishedAt)}`);
  if (sort.priority) parts.push(`priority ${dir(sort.priority)}`);
  if (sort.name) parts.push(`name ${dir(sort.name)}`);
  if (sort.data) parts.push(`data ${dir(sort.data)}`);
  return parts.length > 0 ? parts.join(', ') : DEFAULT_SORT;
}

const where = (f: SqlFilter) => (f.conditions.length > 0 ? `WHERE ${f.conditions.join(' AND ')}` : '');

export class EmbeddedJobRepository implements JobRepository {
  private readonly statements = new Map<string, ReturnType<JobDatabase['prepare']>>();

  constructor(private readonly db: JobDatabase) {}

  private stmt(sql: string) {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  private one(sql: string, params: unknown[]): JobRow | undefined {
    return this.stmt(sql).get(params) as JobRow | undefined;
  }

  private all(sql: string, params: unknown[]): JobRow[] {
    return this.stmt(sql).all(params) as JobRow[];
  }

  private run(sql: string, params: unknown[]): number {
    return this.stmt(sql).run(params).changes;
  }

  async connect(): Promise<void> {
    // The table comes from the embedded migrations; fail loudly if they did not run on this database.
    const t = this.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'agenda_jobs'").get([]);
    if (!t) throw new Error('agenda_jobs table missing: open the database with openEmbeddedDatabase() so migrations run');
  }

  async getJobById(id: string): Promise<JobParameters | null> {
    const row = this.one('SELECT * FROM agenda_jobs WHERE id = ?', [String(id)]);
    return row ? rowToJob(row) : null;
  }

  async queryJobs(options: JobsQueryOptions = {}): Promise<JobsResult> {
    const { name, names, state, id, ids, search, data, includeDisabled = true, sort, skip = 0, limit = 0 } = options;
    const now = new Date();
    const f: SqlFilter = { conditions: [], params: [] };
    if (typeof name === 'string' && name) {
      f.conditions.push('name = ?');
      f.params.push(name);
    } else if (Array.isArray(names) && names.length > 0) {
      f.conditions.push('name IN (SELECT value FROM json_each(?))');
      f.params.push(JSON.stringify(names.filter((n) => typeof n === 'string')));
    }
    if (typeof id === 'string' && id) {
      f.conditions.push('id = ?');
      f.params.push(id);
    } else if (Array.isArray(ids) && ids.length > 0) {
      f.conditions.push('id IN (SELECT value FROM json_each(?))');
      f.params.push(JSON.stringify(ids.filter((i) => typeof i === 'string')));
    }
    if (typeof search === 'string' && search) {
      f.conditions.push("name LIKE ? ESCAPE '\\'");
      f.params.push(`%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
    if (data !== undefined) dataFilter(data, f);
    if (!includeDisabled) f.conditions.push('disabled = 0');

    const withState = (row: JobRow): JobWithState => {
      const job = rowToJob(row);
      return { ...job, _id: job._id as JobId, state: computeJobState(job, now) };
    };

    if (!state) {
      // No state filter: paginate in SQL.
      const page =
        limit > 0 ? ` LIMIT ${Math.trunc(limit)} OFFSET ${Math.trunc(skip)}` : skip > 0 ? ` LIMIT -1 OFFSET ${Math.trunc(skip)}` : '';
      const rows = this.all(`SELECT * FROM agenda_jobs ${where(f)} ORDER BY ${orderBy(sort)}${page}`, f.params);
      const total = (this.stmt(`SELECT COUNT(*) AS n FROM agenda_jobs ${where(f)}`).get(f.params) as { n: number }).n;
      return { jobs: rows.map(withState), total };
    }
    // The state is computed from the fields, so filter in code, then paginate.
    let jobs = this.all(`SELECT * FROM agenda_jobs ${where(f)} ORDER BY ${orderBy(sort)}`, f.params)
      .map(withState)
      .filter((j) => (state === 'paused' ? j.disabled === true : j.state === state));
    const total = jobs.length;
    if (limit > 0) jobs = jobs.slice(skip, skip + limit);
    else if (skip > 0) jobs = jobs.slice(skip);
    return { jobs, total };
  }

  async getJobsOverview(): Promise<JobsOverview[]> {
    const now = new Date();
    const byName = new Map<string, JobsOverview>();
    for (const row of this.all('SELECT * FROM agenda_jobs ORDER BY name', [])) {
      let o = byName.get(row.name);
      if (!o) {
        o = { name: row.name, total: 0, running: 0, scheduled: 0, queued: 0, completed: 0, failed: 0, repeating: 0, paused: 0 };
        byName.set(row.name, o);
      }
      const job = rowToJob(row);
      o.total++;
      o[computeJobState(job, now) as Exclude<keyof JobsOverview, 'name' | 'total'>]++;
      if (job.disabled === true) o.paused++;
    }
    return [...byName.values()];
  }

  async getDistinctJobNames(): Promise<string[]> {
    return (this.stmt('SELECT DISTINCT name FROM agenda_jobs ORDER BY name').all([]) as { name: string }[]).map((r) => r.name);
  }

  async getQueueSize(): Promise<number> {
    return (this.stmt('SELECT COUNT(*) AS n FROM agenda_jobs WHERE next_run_at < ?').get([Date.now()]) as { n: number }).n;
  }

  async removeJobs(options: RemoveJobsOptions): Promise<number> {
    const f = selectionFilter(options);
    if (f.conditions.length === 0) return 0;
    return this.run(`DELETE FROM agenda_jobs ${where(f)}`, f.params);
  }

  async disableJobs(options: RemoveJobsOptions): Promise<number> {
    const f = selectionFilter(options);
    if (f.conditions.length === 0) return 0;
    return this.run(`UPDATE agenda_jobs SET disabled = 1 ${where(f)}`, f.params);
  }

  async enableJobs(options: RemoveJobsOptions): Promise<number> {
    const f = selectionFilter(options);
    if (f.conditions.length === 0) return 0;
    return this.run(`UPDATE agenda_jobs SET disabled = 0 ${where(f)}`, f.params);
  }

  async purgeAllJobs(): Promise<number> {
    return this.run('DELETE FROM agenda_jobs', []);
  }

  async saveJobState(job: JobParameters, options: JobRepositoryOptions | undefined): Promise<void> {
    if (!job._id) throw new Error('Cannot save job state without job ID');
    const changes = this.run(
      `UPDATE agenda_jobs SET locked_at = ?, next_run_at = ?, last_run_at = ?, progress = ?, fail_reason = ?,
         fail_count = ?, failed_at = ?, last_finished_at = ?, last_modified_by = ?
       WHERE id = ? AND name = ?`,
      [
        ms(job.lockedAt),
        ms(job.nextRunAt),
        ms(job.lastRunAt),
        job.progress ?? null,
        job.failReason ?? null,
        job.failCount ?? null,
        ms(job.failedAt),
        ms(job.lastFinishedAt),
        options?.lastModifiedBy ?? null,
        String(job._id),
        job.name,
      ],
    );
    if (changes !== 1) {
      throw new Error(`job ${job._id} (name: ${job.name}) cannot be updated in the database, maybe it does not exist anymore?`);
    }
  }

  async lockJob(job: JobParameters, options: JobRepositoryOptions | undefined): Promise<JobParameters | undefined> {
    if (!job._id) return undefined;
    const row = this.one(
      `UPDATE agenda_jobs SET locked_at = ?, last_modified_by = ?
       WHERE id = ? AND name = ? AND locked_at IS NULL AND next_run_at IS ? AND disabled = 0
       RETURNING *`,
      [Date.now(), options?.lastModifiedBy ?? null, String(job._id), job.name, ms(job.nextRunAt)],
    );
    return row ? rowToJob(row) : undefined;
  }

  async unlockJob(job: JobParameters): Promise<void> {
    if (!job._id) return;
    // Only jobs not being processed (nextRunAt set): a running one-time job has nextRunAt = null.
    this.run('UPDATE agenda_jobs SET locked_at = NULL WHERE id = ? AND next_run_at IS NOT NULL', [String(job._id)]);
  }

  async unlockJobs(jobIds: (JobId | string)[]): Promise<void> {
    if (jobIds.length === 0) return;
    this.run('UPDATE agenda_jobs SET locked_at = NULL WHERE id IN (SELECT value FROM json_each(?))', [JSON.stringify(jobIds.map(String))]);
  }

  async getNextJobToRun(
    jobName: string,
    nextScanAt: Date,
    lockDeadline: Date,
    now: Date | undefined,
    options: JobRepositoryOptions | undefined,
  ): Promise<JobParameters | undefined> {
    // Two index-backed candidates (the earliest due unlocked job, the earliest expired lock), then the
    // same order MongoDB uses over their union; the outer UPDATE locks exactly one row.
    const row = this.one(
      `UPDATE agenda_jobs SET locked_at = ?, last_modified_by = ?
       WHERE id = (
         SELECT id FROM (
           SELECT * FROM (SELECT id, next_run_at, priority FROM agenda_jobs
             WHERE name = ? AND disabled = 0 AND locked_at IS NULL AND next_run_at <= ?
             ORDER BY ${LOCK_ORDER} LIMIT 1)
           UNION ALL
           SELECT * FROM (SELECT id, next_run_at, priority FROM agenda_jobs
             WHERE name = ? AND disabled = 0 AND locked_at <= ?
             ORDER BY ${LOCK_ORDER} LIMIT 1)
         ) ORDER BY ${LOCK_ORDER} LIMIT 1
       )
       RETURNING *`,
      [ms(now ?? new Date()), options?.lastModifiedBy ?? null, jobName, ms(nextScanAt), jobName, ms(lockDeadline)],
    );
    return row ? rowToJob(row) : undefined;
  }

  async saveJob<DATA = unknown>(job: JobParameters<DATA>, options: JobRepositoryOptions | undefined): Promise<JobParameters<DATA>> {
    const { _id, unique, uniqueOpts, ...props } = job;
    const lastModifiedBy = options?.lastModifiedBy ?? null;
    const values = definitionValues(props as JobParameters, lastModifiedBy);

    if (_id) {
      // Update an existing job's definition; state fields only when the caller carries them.
      const state = STATE_FIELDS.filter(([key]) => props[key as keyof typeof props] !== undefined);
      const sets = [...DEFINITION_COLUMNS.map((c) => `${c} = ?`), ...state.map(([, c]) => `${c} = ?`)];
      const row = this.one(`UPDATE agenda_jobs SET ${sets.join(', ')} WHERE id = ? AND name = ? RETURNING *`, [
        ...values,
        ...state.map(([key, , conv]) => conv(props[key as keyof typeof props])),
        String(_id),
        props.name,
      ]);
      // A job removed meanwhile: return what we were given, as MongoDB does.
      return row ? rowToJob<DATA>(row) : job;
    }

    if (props.type === 'single') {
      // One row per name for every(); an already-due nextRunAt is kept so a restart neither
      // postpones nor repeats the job (MongoDB's $setOnInsert protection).
      const protect = props.nextRunAt != null && ms(props.nextRunAt)! <= Date.now();
      const updates = DEFINITION_COLUMNS.filter((c) => c !== 'name' && c !== 'type').map((c) =>
        c === 'next_run_at' && protect ? 'next_run_at = COALESCE(agenda_jobs.next_run_at, excluded.next_run_at)' : `${c} = excluded.${c}`,
      );
      const row = this.one(
        `INSERT INTO agenda_jobs (id, ${DEFINITION_COLUMNS.join(', ')}) VALUES (?, ${DEFINITION_COLUMNS.map(() => '?').join(', ')})
         ON CONFLICT (name) WHERE type = 'single' DO UPDATE SET ${updates.join(', ')}
         RETURNING *`,
        [randomUUID(), ...values],
      );
      return rowToJob<DATA>(row!);
    }

    if (unique) return this.saveUnique(props as JobParameters<DATA>, unique, uniqueOpts, lastModifiedBy);

    return rowToJob<DATA>(this.insert(props as JobParameters, values)!);
  }

  private insert(props: JobParameters, values: unknown[]): JobRow | undefined {
    const state = STATE_FIELDS.filter(([key]) => props[key] !== undefined);
    const columns = ['id', ...DEFINITION_COLUMNS, 'debounce_started_at', ...state.map(([, c]) => c)];
    return this.one(`INSERT INTO agenda_jobs (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) RETURNING *`, [
      randomUUID(),
      ...values,
      ms(props.debounceStartedAt),
      ...state.map(([key, , conv]) => conv(props[key])),
    ]);
  }

  /** Upsert by a `unique()` key, with MongoDB's insert-only and debounce semantics, in one IMMEDIATE transaction. */
  private saveUnique<DATA>(
    props: JobParameters<DATA>,
    unique: Record<string, unknown>,
    uniqueOpts: JobParameters['uniqueOpts'],
    lastModifiedBy: string | null,
  ): JobParameters<DATA> {
    const values = definitionValues(props as JobParameters, lastModifiedBy);
    const f = uniqueFilter(props.name, unique);
    const debounce = uniqueOpts?.debounce;
    const tx = this.db.transaction((): JobRow => {
      const now = Date.now();
      const existing = this.one(`SELECT * FROM agenda_jobs ${where(f)} ORDER BY rowid LIMIT 1`, f.params);
      if (existing) {
        if (uniqueOpts?.insertOnly && !debounce) return existing;
        let nextRunAt = ms(props.nextRunAt);
        let debounceStartedAt: number | null = null;
        if (debounce) {
          const started = existing.debounce_started_at ?? now;
          if (debounce.strategy === 'leading') {
            nextRunAt = existing.next_run_at;
            debounceStartedAt = started;
          } else if (debounce.maxWait && now - started >= debounce.maxWait) {
            nextRunAt = now;
            debounceStartedAt = null;
          } else {
            nextRunAt = now + debounce.delay;
            debounceStartedAt = started;
          }
        }
        const cols = DEFINITION_COLUMNS.filter((c) => c !== 'name');
        const vals = values.slice(1).map((v, i) => (cols[i] === 'next_run_at' ? nextRunAt : v));
        return this.one(
          `UPDATE agenda_jobs SET ${cols.map((c) => `${c} = ?`).join(', ')}, debounce_started_at = ? WHERE id = ? RETURNING *`,
          [...vals, debounceStartedAt, existing.id],
        )!;
      }
      const fresh = { ...props } as JobParameters;
      if (debounce) {
        fresh.debounceStartedAt = new Date(now);
        if (debounce.strategy !== 'leading') fresh.nextRunAt = new Date(now + debounce.delay);
      }
      return this.insert(fresh, definitionValues(fresh, lastModifiedBy))!;
    });
    return rowToJob<DATA>(tx.immediate());
  }
}
