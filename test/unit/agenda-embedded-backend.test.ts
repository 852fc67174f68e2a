import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { JobParameters } from 'agenda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedDatabase, openInMemoryDatabase, type EmbeddedDatabase } from '../../adapters/embedded/database.js';
import { backoffFor } from '../../jobs/agenda.js';
import { PermanentJobError } from '../../jobs/definition.js';
import { UnsupportedFilterError } from '../../jobs/embedded-backend/filters.js';
import { EmbeddedJobRepository } from '../../jobs/embedded-backend/repository.js';
import { GuardedJobRepository } from '../../jobs/guarded-repository.js';

const T = Date.parse('2030-01-01T00:00:00.000Z');
const at = (offsetMs: number) => new Date(Date.now() + offsetMs);

function job(overrides: Partial<JobParameters> = {}): JobParameters {
  return { name: 'j', priority: 0, nextRunAt: at(-1_000), type: 'normal', data: { n: 1 }, ...overrides };
}

const scan = () => at(5_000);
const noExpiry = () => new Date(0);

describe('EmbeddedJobRepository', () => {
  let db: EmbeddedDatabase;
  let repo: EmbeddedJobRepository;
  beforeEach(async () => {
    db = openInMemoryDatabase();
    repo = new EmbeddedJobRepository(db);
    await repo.connect();
  });
  afterEach(() => db.close());

  it('saves a job and reads every field back', async () => {
    const input = job({
      name: 'full',
      priority: 10,
      nextRunAt: new Date(T),
      data: { tenantId: 't1', nested: { a: [1, 2] }, flag: true, when: new Date(T) as unknown as string },
      repeatInterval: 5_000,
      repeatTimezone: 'Europe/Paris',
      startDate: new Date(T - 1),
      endDate: new Date(T + 1),
      skipDays: [0, 6],
      fork: false,
      failCount: 2,
      failReason: 'boom',
      failedAt: new Date(T - 5),
      lastRunAt: new Date(T - 10),
      lastFinishedAt: new Date(T - 5),
      progress: 50,
    });
    const saved = await repo.saveJob(input, { lastModifiedBy: 'me' });
    expect(saved._id).toMatch(/^[0-9a-f-]{36}$/);
    const read = await repo.getJobById(saved._id!);
    expect(read).toEqual({
      ...input,
      _id: saved._id,
      // Payloads are stored as JSON: a Date comes back as its ISO string.
      data: { tenantId: 't1', nested: { a: [1, 2] }, flag: true, when: '2030-01-01T00:00:00.000Z' },
      lastModifiedBy: 'me',
      lockedAt: undefined,
      repeatAt: undefined,
      disabled: undefined,
      debounceStartedAt: undefined,
    });
    expect((await repo.saveJob(job({ name: 'str', repeatInterval: '5 minutes' }), undefined)).repeatInterval).toBe('5 minutes');
    expect(await repo.getJobById('no-such-id')).toBeNull();
  });

  it('locks due jobs one at a time: earliest nextRunAt first, then highest priority; never disabled or not yet due ones', async () => {
    const first = await repo.saveJob(job({ nextRunAt: at(-3_000) }), undefined);
    const high = await repo.saveJob(job({ nextRunAt: at(-2_000), priority: 10 }), undefined);
    const low = await repo.saveJob(job({ nextRunAt: at(-2_000), priority: 0 }), undefined);
    const later = await repo.saveJob(job({ nextRunAt: at(60_000) }), undefined);
    await repo.saveJob(job({ nextRunAt: at(-9_000), disabled: true }), undefined);
    await repo.saveJob(job({ name: 'other', nextRunAt: at(-9_000) }), undefined);
    const lock = () => repo.getNextJobToRun('j', scan(), noExpiry(), undefined, { lastModifiedBy: 'w1' });
    const order = [(await lock())?._id, (await lock())?._id, (await lock())?._id, (await lock())?._id];
    expect(order).toEqual([first._id, high._id, low._id, undefined]);
    const locked = await repo.getJobById(first._id!);
    expect(locked).toMatchObject({ lockedAt: expect.any(Date), lastModifiedBy: 'w1' });
    // A job due within the next scan is taken early (Agenda waits locally until its time).
    expect((await repo.getNextJobToRun('j', at(120_000), noExpiry(), undefined, undefined))?._id).toBe(later._id);
  });

  it('never hands a locked job to another connection until its lock expires, then hands it over', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'agenda-backend-'));
    const a = openEmbeddedDatabase(dir);
    const b = openEmbeddedDatabase(dir);
    try {
      const ra = new EmbeddedJobRepository(a);
      const rb = new EmbeddedJobRepository(b);
      const saved = await ra.saveJob(job(), undefined);
      const lockedAt = new Date();
      const taken = await ra.getNextJobToRun('j', scan(), noExpiry(), lockedAt, { lastModifiedBy: 'a' });
      expect(taken?._id).toBe(saved._id);
      // A one-time job that started running has nextRunAt = null (Agenda saves that when it starts).
      await ra.saveJobState({ ...taken!, nextRunAt: null, lastRunAt: lockedAt }, { lastModifiedBy: 'a' });
      expect(await rb.getNextJobToRun('j', scan(), new Date(lockedAt.getTime() - 1), undefined, { lastModifiedBy: 'b' })).toBeUndefined();
      const rescued = await rb.getNextJobToRun('j', scan(), new Date(lockedAt.getTime() + 1), undefined, { lastModifiedBy: 'b' });
      expect(rescued).toMatchObject({ _id: saved._id, nextRunAt: null, lastModifiedBy: 'b' });
      expect(rescued!.lockedAt!.getTime()).toBeGreaterThan(lockedAt.getTime() - 1);
    } finally {
      a.close();
      b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lockJob locks only an unlocked, enabled job whose nextRunAt still matches', async () => {
    const saved = await repo.saveJob(job(), undefined);
    expect(await repo.lockJob({ ...saved, nextRunAt: at(1) }, undefined)).toBeUndefined();
    expect((await repo.lockJob(saved, { lastModifiedBy: 'x' }))?.lockedAt).toBeInstanceOf(Date);
    expect(await repo.lockJob(saved, undefined)).toBeUndefined();
    const disabled = await repo.saveJob(job({ disabled: true }), undefined);
    expect(await repo.lockJob(disabled, undefined)).toBeUndefined();
  });

  it('unlockJob leaves a running one-time job locked; unlockJobs unlocks by id', async () => {
    const a = await repo.saveJob(job(), undefined);
    const b = await repo.saveJob(job(), undefined);
    await repo.getNextJobToRun('j', scan(), noExpiry(), undefined, undefined);
    await repo.getNextJobToRun('j', scan(), noExpiry(), undefined, undefined);
    await repo.saveJobState({ ...(await repo.getJobById(a._id!))!, nextRunAt: null }, undefined);
    await repo.unlockJob(a);
    await repo.unlockJob(b);
    expect((await repo.getJobById(a._id!))?.lockedAt).toBeInstanceOf(Date);
    expect((await repo.getJobById(b._id!))?.lockedAt).toBeUndefined();
    await repo.unlockJobs([a._id!]);
    expect((await repo.getJobById(a._id!))?.lockedAt).toBeUndefined();
    await repo.unlockJobs([]);
  });

  it('saveJobState writes the run state and refuses a job that no longer exists', async () => {
    const saved = await repo.saveJob(job(), undefined);
    await repo.saveJobState(
      {
        ...saved,
        lockedAt: undefined,
        nextRunAt: null,
        lastRunAt: new Date(T),
        lastFinishedAt: new Date(T + 5),
        failCount: 1,
        failReason: 'x',
        failedAt: new Date(T + 5),
        progress: 100,
      },
      { lastModifiedBy: 'w' },
    );
    expect(await repo.getJobById(saved._id!)).toMatchObject({
      nextRunAt: null,
      lastRunAt: new Date(T),
      lastFinishedAt: new Date(T + 5),
      failCount: 1,
      failReason: 'x',
      progress: 100,
      lastModifiedBy: 'w',
    });
    await repo.removeJobs({ id: saved._id });
    await expect(repo.saveJobState(saved, undefined)).rejects.toThrow(/cannot be updated/);
  });

  it('keeps one row per every() job: a due nextRunAt survives a re-declaration, and a running job keeps its lock', async () => {
    const due = at(-500);
    const first = await repo.saveJob(
      job({ name: 'tick', type: 'single', nextRunAt: due, repeatInterval: 1_000, data: { v: 1 } }),
      undefined,
    );
    await repo.getNextJobToRun('tick', scan(), noExpiry(), undefined, undefined);
    const again = await repo.saveJob(
      job({ name: 'tick', type: 'single', nextRunAt: at(-1), repeatInterval: 2_000, data: { v: 2 } }),
      undefined,
    );
    expect(again._id).toBe(first._id);
    expect(again).toMatchObject({ nextRunAt: due, repeatInterval: 2_000, data: { v: 2 }, lockedAt: expect.any(Date) });
    // A future nextRunAt (e.g. skipImmediate) replaces the stored one.
    const future = at(60_000);
    expect(
      (await repo.saveJob(job({ name: 'tick', type: 'single', nextRunAt: future, repeatInterval: 2_000 }), undefined)).nextRunAt,
    ).toEqual(future);
    expect((await repo.queryJobs({ name: 'tick' })).total).toBe(1);
  });

  it('upserts by a unique key: insertOnly keeps the existing job, otherwise payload and schedule are replaced', async () => {
    const key = { 'data.tenantId': 't1', 'data.n': 5 };
    const a = await repo.saveJob(job({ data: { tenantId: 't1', n: 5, v: 'a' }, unique: key, uniqueOpts: { insertOnly: true } }), undefined);
    const b = await repo.saveJob(job({ data: { tenantId: 't1', n: 5, v: 'b' }, unique: key, uniqueOpts: { insertOnly: true } }), undefined);
    expect(b).toMatchObject({ _id: a._id, data: { v: 'a' } });
    const later = at(30_000);
    const c = await repo.saveJob(job({ data: { tenantId: 't1', n: 5, v: 'c' }, nextRunAt: later, unique: key }), undefined);
    expect(c).toMatchObject({ _id: a._id, data: { v: 'c' }, nextRunAt: later });
    // Typed like MongoDB: the string "5" is not the number 5, and a different tenant is another key.
    const d = await repo.saveJob(job({ data: { tenantId: 't1', n: '5' }, unique: { 'data.tenantId': 't1', 'data.n': '5' } }), undefined);
    const e = await repo.saveJob(job({ data: { tenantId: 't2', n: 5 }, unique: { 'data.tenantId': 't2', 'data.n': 5 } }), undefined);
    expect(new Set([a._id, d._id, e._id]).size).toBe(3);
    const flag = await repo.saveJob(job({ data: { on: true }, unique: { 'data.on': true }, uniqueOpts: { insertOnly: true } }), undefined);
    expect(
      (await repo.saveJob(job({ data: { on: true }, unique: { 'data.on': true }, uniqueOpts: { insertOnly: true } }), undefined))._id,
    ).toBe(flag._id);
    expect(
      (await repo.saveJob(job({ data: { on: false }, unique: { 'data.on': false }, uniqueOpts: { insertOnly: true } }), undefined))._id,
    ).not.toBe(flag._id);
  });

  it('debounces unique jobs: trailing pushes the run back, maxWait forces it, leading keeps the first time', async () => {
    const key = { 'data.k': 'x' };
    const t0 = Date.now();
    const a = await repo.saveJob(
      job({ data: { k: 'x' }, nextRunAt: new Date(), unique: key, uniqueOpts: { debounce: { delay: 10_000, strategy: 'trailing' } } }),
      undefined,
    );
    expect(a.nextRunAt!.getTime()).toBeGreaterThanOrEqual(t0 + 10_000);
    expect(a.debounceStartedAt).toBeInstanceOf(Date);
    const b = await repo.saveJob(
      job({ data: { k: 'x', v: 2 }, nextRunAt: new Date(), unique: key, uniqueOpts: { debounce: { delay: 20_000 } } }),
      undefined,
    );
    expect(b._id).toBe(a._id);
    expect(b.nextRunAt!.getTime()).toBeGreaterThanOrEqual(t0 + 20_000);
    // The burst started long ago: maxWait forces the run now and ends the burst.
    db.prepare('UPDATE agenda_jobs SET debounce_started_at = ? WHERE id = ?').run([t0 - 60_000, a._id]);
    const c = await repo.saveJob(
      job({ data: { k: 'x' }, nextRunAt: new Date(), unique: key, uniqueOpts: { debounce: { delay: 20_000, maxWait: 30_000 } } }),
      undefined,
    );
    expect(c.nextRunAt!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(c.debounceStartedAt).toBeUndefined();

    const lead = { 'data.k': 'lead' };
    const l1 = await repo.saveJob(
      job({ data: { k: 'lead' }, nextRunAt: new Date(T), unique: lead, uniqueOpts: { debounce: { delay: 5_000, strategy: 'leading' } } }),
      undefined,
    );
    expect(l1.nextRunAt).toEqual(new Date(T));
    const l2 = await repo.saveJob(
      job({
        data: { k: 'lead', v: 2 },
        nextRunAt: new Date(T + 99),
        unique: lead,
        uniqueOpts: { debounce: { delay: 5_000, strategy: 'leading' } },
      }),
      undefined,
    );
    expect(l2).toMatchObject({ _id: l1._id, nextRunAt: new Date(T), data: { v: 2 } });
  });

  it('refuses query operators and unsafe field names in unique keys and data filters', async () => {
    await expect(repo.saveJob(job({ unique: { $where: '1' } }), undefined)).rejects.toBeInstanceOf(UnsupportedFilterError);
    await expect(repo.saveJob(job({ unique: { 'data.a': { $gt: 1 } } }), undefined)).rejects.toBeInstanceOf(UnsupportedFilterError);
    await expect(repo.saveJob(job({ unique: { "data.a') OR 1=1 --": 1 } }), undefined)).rejects.toBeInstanceOf(UnsupportedFilterError);
    await expect(repo.saveJob(job({ unique: { lockedAt: null } }), undefined)).rejects.toBeInstanceOf(UnsupportedFilterError);
    await expect(repo.removeJobs({ data: { $ne: 1 } })).rejects.toBeInstanceOf(UnsupportedFilterError);
    await expect(repo.queryJobs({ data: { 'a"b': 1 } })).rejects.toBeInstanceOf(UnsupportedFilterError);
  });

  it('queries by name, state, literal search text and payload, with sort and pagination', async () => {
    const now = Date.now();
    const queued = await repo.saveJob(
      job({ name: 'mail_100%', nextRunAt: new Date(now - 1_000), data: { tenant: { id: 't1' }, tags: ['a', 'b'] } }),
      undefined,
    );
    const scheduled = await repo.saveJob(
      job({ name: 'mail_1000', nextRunAt: new Date(now + 60_000), data: { tenant: { id: 't2' } } }),
      undefined,
    );
    const failed = await repo.saveJob(
      job({ name: 'mailX100', nextRunAt: null, failedAt: new Date(now - 10), lastFinishedAt: new Date(now - 10), failCount: 3 }),
      undefined,
    );
    const paused = await repo.saveJob(job({ name: 'other', disabled: true }), undefined);
    const ids = (r: { jobs: { _id: string }[] }) => r.jobs.map((j) => j._id);
    expect(ids(await repo.queryJobs({ state: 'queued', names: ['mail_100%', 'mail_1000', 'mailX100'] }))).toEqual([queued._id]);
    expect(ids(await repo.queryJobs({ state: 'scheduled' }))).toEqual([scheduled._id]);
    expect(ids(await repo.queryJobs({ state: 'failed' }))).toEqual([failed._id]);
    expect(ids(await repo.queryJobs({ state: 'paused' }))).toEqual([paused._id]);
    // `%` and `_` in the search text are literal.
    expect(ids(await repo.queryJobs({ search: '_100%' }))).toEqual([queued._id]);
    expect(ids(await repo.queryJobs({ data: { tenant: { id: 't2' } } }))).toEqual([scheduled._id]);
    expect(ids(await repo.queryJobs({ data: { tags: ['a', 'b'] } }))).toEqual([queued._id]);
    // Binary collation: 'X' (0x58) sorts before '_' (0x5F).
    expect(ids(await repo.queryJobs({ includeDisabled: false, sort: { name: 'asc' } }))).toEqual([failed._id, queued._id, scheduled._id]);
    const page = await repo.queryJobs({ sort: { name: 'desc' }, skip: 1, limit: 2 });
    expect(page.total).toBe(4);
    expect(ids(page)).toEqual([scheduled._id, queued._id]);
    expect((await repo.queryJobs({ id: queued._id })).jobs[0]).toMatchObject({ state: 'queued' });
  });

  it('removes, disables and enables by id, names, all-but-names and payload; purges everything', async () => {
    const a = await repo.saveJob(job({ name: 'a', data: { t: 1 } }), undefined);
    await repo.saveJob(job({ name: 'a', data: { t: 2 } }), undefined);
    await repo.saveJob(job({ name: 'b' }), undefined);
    await repo.saveJob(job({ name: 'c', nextRunAt: at(60_000) }), undefined);
    expect(await repo.getDistinctJobNames()).toEqual(['a', 'b', 'c']);
    expect(await repo.getQueueSize()).toBe(3);
    expect((await repo.getJobsOverview()).find((o) => o.name === 'a')).toMatchObject({ total: 2, queued: 2 });
    expect(await repo.removeJobs({})).toBe(0);
    expect(await repo.disableJobs({ name: 'b' })).toBe(1);
    expect(await repo.getNextJobToRun('b', scan(), noExpiry(), undefined, undefined)).toBeUndefined();
    expect(await repo.enableJobs({ names: ['b'] })).toBe(1);
    expect(await repo.removeJobs({ name: 'a', data: { t: 2 } })).toBe(1);
    expect(await repo.removeJobs({ notNames: ['a', 'b'] })).toBe(1);
    expect(await repo.removeJobs({ ids: [a._id!] })).toBe(1);
    expect(await repo.getDistinctJobNames()).toEqual(['b']);
    expect(await repo.purgeAllJobs()).toBe(1);
    expect((await repo.queryJobs()).total).toBe(0);
  });

  it('is not usable on a database whose migrations did not run', async () => {
    const Database = (await import('libsql')).default;
    const bare = new Database(':memory:');
    await expect(new EmbeddedJobRepository(bare).connect()).rejects.toThrow(/agenda_jobs table missing/);
    bare.close();
  });
});

describe('GuardedJobRepository', () => {
  it('hands a job taken over from a dead worker back due now, instead of stranding it', async () => {
    const db = openInMemoryDatabase();
    const inner = new EmbeddedJobRepository(db);
    const guard = new GuardedJobRepository(inner);
    const saved = await inner.saveJob(job(), undefined);
    const crashedAt = at(-60_000);
    // A dead worker's run: locked long ago, nextRunAt already null.
    await inner.saveJobState({ ...saved, lockedAt: crashedAt, nextRunAt: null, lastRunAt: crashedAt }, undefined);
    const taken = await guard.getNextJobToRun('j', scan(), at(-1_000), undefined, { lastModifiedBy: 'rescuer' });
    expect(taken?._id).toBe(saved._id);
    expect(guard.heldIds()).toEqual([saved._id]);
    guard.close(); // stopping before it ran: Agenda unlocks it
    await guard.unlockJobs([saved._id!]);
    expect(guard.heldIds()).toEqual([]);
    const back = await inner.getJobById(saved._id!);
    expect(back).toMatchObject({ lockedAt: undefined, nextRunAt: expect.any(Date) });
    expect(back!.nextRunAt!.getTime()).toBeLessThanOrEqual(Date.now());
    // Closed: it takes no new locks; another worker can run it at once.
    expect(await guard.getNextJobToRun('j', scan(), noExpiry(), undefined, undefined)).toBeUndefined();
    expect((await inner.getNextJobToRun('j', scan(), noExpiry(), undefined, undefined))?._id).toBe(saved._id);
    db.close();
  });

  it('reports when every held job is released, or times out', async () => {
    const db = openInMemoryDatabase();
    const guard = new GuardedJobRepository(new EmbeddedJobRepository(db));
    const saved = await guard.saveJob(job(), undefined);
    expect(await guard.whenReleased(10)).toBe(true);
    const taken = (await guard.getNextJobToRun('j', scan(), noExpiry(), undefined, undefined))!;
    expect(await guard.whenReleased(30)).toBe(false);
    const released = guard.whenReleased(5_000);
    await guard.saveJobState({ ...taken, lockedAt: undefined, nextRunAt: null, lastFinishedAt: new Date() }, undefined);
    expect(await released).toBe(true);
    expect((await guard.getJobById(saved._id!))?.lockedAt).toBeUndefined();
    db.close();
  });
});

describe('retry policy', () => {
  const ctx = (attempt: number, error: Error = new Error('x')) => ({ attempt, error, jobName: 'j', jobData: {} });

  it('backs off exponentially up to the attempt limit, within the jitter band and the cap', () => {
    const exact = backoffFor({ attempts: 4, baseMs: 100, jitter: 0 });
    expect([1, 2, 3, 4].map((n) => exact(ctx(n)))).toEqual([100, 200, 400, null]);
    const capped = backoffFor({ attempts: 10, baseMs: 1_000, maxMs: 3_000, jitter: 0 });
    expect(capped(ctx(5))).toBe(3_000);
    const jittered = backoffFor({ attempts: 5, baseMs: 1_000, jitter: 0.2 });
    for (let i = 0; i < 200; i++) {
      const d = jittered(ctx(2))!;
      expect(d).toBeGreaterThanOrEqual(1_600);
      expect(d).toBeLessThanOrEqual(2_400);
    }
  });

  it('never retries a permanent failure, nor a definition that opts out', () => {
    expect(backoffFor(undefined)(ctx(1, new PermanentJobError('no')))).toBeNull();
    expect(backoffFor(false)(ctx(1))).toBeNull();
    expect(backoffFor(undefined)(ctx(1))).toBeGreaterThan(0); // default policy retries
  });
});

describe('atomic locking across processes', () => {
  it('three processes racing for 2000 due jobs lock each exactly once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'agenda-race-'));
    const db = openEmbeddedDatabase(dir);
    try {
      const repo = new EmbeddedJobRepository(db);
      const insert = db.transaction(() => {
        for (let i = 0; i < 2_000; i++) void repo.saveJob(job({ name: 'race', data: { i } }), undefined);
      });
      insert();
      const script = path.join(import.meta.dirname, '..', 'support', 'lock-racer.ts');
      const ready: Promise<void>[] = [];
      const racers = [0, 1, 2].map(
        () =>
          new Promise<{ pid: number; ids: string[] }>((resolve, reject) => {
            const child = spawn(process.execPath, ['--import', 'tsx', script], {
              env: { ...process.env, DATA_DIR: dir, RACERS: '3' },
              stdio: ['ignore', 'pipe', 'pipe'],
            });
            let out = '';
            let err = '';
            let signalReady!: () => void;
            ready.push(new Promise<void>((r) => (signalReady = r)));
            child.stdout.on('data', (c) => {
              out += c;
              if (out.includes('"ready"')) signalReady();
            });
            child.stderr.on('data', (c) => (err += c));
            child.on('exit', (code) => {
              signalReady();
              if (code !== 0) return reject(new Error(`racer exited ${code}: ${err}`));
              resolve(JSON.parse(out.trim().split('\n').at(-1)!));
            });
          }),
      );
      // Start the race once every racer is warm.
      await Promise.all(ready);
      await repo.saveJob(job({ name: 'go', nextRunAt: null }), undefined);
      const results = await Promise.all(racers);
      const all = results.flatMap((r) => r.ids);
      expect(all).toHaveLength(2_000);
      expect(new Set(all).size).toBe(2_000);
      // Every racer took part (each holds its first job before any goes on; see lock-racer.ts).
      expect(results.filter((r) => r.ids.length > 0).length).toBe(3);
      expect(
        (db.prepare('SELECT COUNT(*) AS n FROM agenda_jobs WHERE name = ? AND locked_at IS NULL').get(['race']) as { n: number }).n,
      ).toBe(0);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
