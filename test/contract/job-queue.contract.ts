/**
 * One behavioural suite for the job queue (Agenda 6 behind `JobQueue`), run against every backend:
 * the embedded libsql backend always, MongoDB when MONGODB_URL is set. Each test gets a fresh store.
 *
 * Tests assert outcomes (what ran, how often, in which state a job ends), never wall-clock limits;
 * lock lifetimes and poll intervals are short so that waiting stays brief.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgendaJobQueue, JobQueueOptions } from '../../jobs/agenda.js';
import { JobPayloadError } from '../../server/ports/job-queue.js';
import { createLogger } from '../../server/logger.js';
import { spawnJobWorker, type ChildWorker } from '../support/job-child.js';
import {
  countJob,
  failJob,
  FAIL_BASE_MS,
  gateJob,
  memoryContext,
  repeatJob,
  SLEEP_LOCK_MS,
  sleepJob,
  testJobDefinitions,
  until,
  type JobEvent,
  type TestJobContext,
} from '../support/job-fixtures.js';

export interface JobQueueHarness {
  /** A new, not yet defined or started queue on the shared store, with its own connection where the backend has one. */
  queue(
    options: Omit<JobQueueOptions<TestJobContext>, 'logger'> & { logger?: JobQueueOptions<TestJobContext>['logger'] },
  ): AgendaJobQueue<TestJobContext>;
  /** Environment that makes `test/support/job-worker.ts` open the same store. */
  childEnv: Record<string, string>;
  close(): Promise<void>;
}

const quiet = createLogger('silent');

export function describeJobQueueContract(name: string, makeQueue: () => Promise<JobQueueHarness>): void {
  describe(`JobQueue contract: ${name}`, () => {
    let harness: JobQueueHarness;
    let queues: AgendaJobQueue<TestJobContext>[];
    let children: ChildWorker[];

    beforeEach(async () => {
      harness = await makeQueue();
      queues = [];
      children = [];
    });
    afterEach(async () => {
      for (const c of children) if (c.process.exitCode === null) c.process.kill('SIGKILL');
      await Promise.all(children.map((c) => c.exited));
      for (const q of queues) await q.stop(2_000);
      await harness.close();
    });

    /** A queue with every test definition; `start` makes it a worker. */
    async function worker(worker: string, opts: Partial<JobQueueOptions<TestJobContext>> & { start?: boolean; maxSleepMs?: number } = {}) {
      const mem = memoryContext(worker, { maxSleepMs: opts.maxSleepMs });
      const q = harness
        .queue({ logger: quiet, context: () => mem.ctx, workerName: worker, processEveryMs: 50, ...opts })
        .defineAll(testJobDefinitions);
      queues.push(q);
      await q.ready();
      if (opts.start !== false) await q.start();
      return { q, ...mem };
    }
    /** A queue that only enqueues (like an HTTP server with WORKER_MODE=external). */
    const producer = () => worker('producer', { start: false });
    const ofJob = (events: JobEvent[], id: string, event?: string) => events.filter((e) => e.jobId === id && (!event || e.event === event));

    it('runs a job once and removes it when it succeeds', async () => {
      const { q, events } = await worker('w1');
      const job = await q.now(countJob, { key: 'a' });
      expect(job).toMatchObject({ id: expect.any(String), name: 'test.count' });
      await until(async () => (await q.get(job.id)) === null, 'the completed job to be removed');
      await sleep(300); // several more polls
      expect(ofJob(events, job.id, 'ran')).toEqual([expect.objectContaining({ key: 'a', attempt: 1 })]);
    });

    it('validates payloads when enqueued, stores nothing invalid, and hands handlers the parsed payload', async () => {
      const { q, events } = await worker('w1');
      await expect(q.now('test.count', { key: 42 } as never)).rejects.toBeInstanceOf(JobPayloadError);
      await expect(q.now('test.nope', {} as never)).rejects.toThrow(/unknown job/);
      await expect(q.now(countJob, { key: 'x' }, { insertOnly: true })).rejects.toThrow(/unique key/);
      expect((await q.counts()).total).toBe(0);
      // `permanent` has a default: the handler sees the parsed value, so this succeeds on attempt 1.
      const job = await q.now(failJob, { failTimes: 0 });
      await until(() => ofJob(events, job.id, 'succeeded').length === 1, 'the job to succeed');
    });

    it('repeats an every() job, with one schedule however often it is declared, until cancelled', async () => {
      const { q, events } = await worker('w1');
      const first = await q.every(150, repeatJob, { key: 'tick' });
      const second = await q.every(150, repeatJob, { key: 'tick' });
      expect(second.id).toBe(first.id);
      expect((await q.counts('test.repeat')).total).toBe(1);
      await until(() => ofJob(events, first.id, 'ran').length >= 3, 'three runs of the repeating job');
      expect((await q.get(first.id))?.state).toMatch(/repeating|running/);
      expect(await q.cancel({ name: 'test.repeat' })).toBe(1);
      await sleep(100);
      const runs = ofJob(events, first.id, 'ran').length;
      await sleep(500);
      expect(ofJob(events, first.id, 'ran').length).toBe(runs);
    });

    it('retries a failing job with exponential backoff, then marks it failed', async () => {
      const { q, events } = await worker('w1');
      const job = await q.now(failJob, { failTimes: -1 });
      await until(async () => (await q.get(job.id))?.state === 'failed', 'the job to be marked failed');
      await sleep(FAIL_BASE_MS * 6); // a fourth attempt would have come by now
      const attempts = ofJob(events, job.id, 'attempt');
      expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
      // Backoff: the n-th retry waits at least base·2^(n-1) after the previous attempt.
      expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(FAIL_BASE_MS);
      expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(FAIL_BASE_MS * 2);
      expect(await q.get(job.id)).toMatchObject({
        state: 'failed',
        failCount: 3,
        failReason: 'failure on attempt 3',
        nextRunAt: null,
        lockedAt: null,
      });
    });

    it('recovers from transient failures: retried, then completed', async () => {
      const { q, events } = await worker('w1');
      const job = await q.now(failJob, { failTimes: 2 });
      await until(() => ofJob(events, job.id, 'succeeded').length === 1, 'success on the third attempt');
      expect(ofJob(events, job.id, 'attempt').map((a) => a.attempt)).toEqual([1, 2, 3]);
      await until(async () => (await q.get(job.id)) === null, 'the completed job to be removed');
    });

    it('fails a job at once on a permanent error', async () => {
      const { q, events } = await worker('w1');
      const job = await q.now(failJob, { failTimes: -1, permanent: true });
      await until(async () => (await q.get(job.id))?.state === 'failed', 'the job to be marked failed');
      await sleep(FAIL_BASE_MS * 3);
      expect(ofJob(events, job.id, 'attempt')).toHaveLength(1);
      expect(await q.get(job.id)).toMatchObject({ failCount: 1, failReason: 'permanent failure on attempt 1' });
    });

    it('keeps at most one pending job per unique key with insertOnly', async () => {
      const { q } = await producer();
      const a = await q.now(countJob, { key: 'k1' }, { unique: { key: 'k1' }, insertOnly: true });
      const b = await q.now(countJob, { key: 'k1' }, { unique: { key: 'k1' }, insertOnly: true });
      const c = await q.now(countJob, { key: 'k2' }, { unique: { key: 'k2' }, insertOnly: true });
      expect(b.id).toBe(a.id);
      expect(c.id).not.toBe(a.id);
      expect((await q.counts('test.count')).queued).toBe(2);
    });

    it('cancels pending jobs by name and payload', async () => {
      const { q } = await producer();
      await q.now(countJob, { key: 'keep' });
      await q.now(countJob, { key: 'drop' });
      await q.now(countJob, { key: 'drop' });
      expect(await q.cancel({})).toBe(0);
      expect(await q.cancel({ name: 'test.count', payload: { key: 'drop' } })).toBe(2);
      expect((await q.counts('test.count')).total).toBe(1);
    });

    it('never runs a job twice when two workers share the store (500 jobs)', async () => {
      const a = await worker('w-a', { lockLimit: 10 });
      const b = await worker('w-b', { lockLimit: 10 });
      const { q } = await producer();
      const ids: string[] = [];
      for (let i = 0; i < 500; i += 50) {
        const batch = await Promise.all(Array.from({ length: 50 }, (_, j) => q.now(countJob, { key: `k${i + j}` })));
        ids.push(...batch.map((j) => j.id));
      }
      const ran = () => [...a.events, ...b.events].filter((e) => e.event === 'ran');
      await until(() => new Set(ran().map((e) => e.jobId)).size === 500, 'all 500 jobs to run', 60_000);
      await sleep(300);
      const runs = ran();
      expect(runs).toHaveLength(500);
      expect(new Set(runs.map((e) => e.jobId))).toEqual(new Set(ids));
      expect(a.events.length).toBeGreaterThan(0);
      expect(b.events.length).toBeGreaterThan(0);
    });

    it('never runs a job twice when a worker in another process shares the store', async () => {
      const child = await spawnJobWorker({ ...harness.childEnv, WORKER_NAME: 'child', PROCESS_EVERY_MS: '50', LOCK_LIMIT: '10' });
      children.push(child);
      const here = await worker('here', { lockLimit: 10 });
      const { q } = await producer();
      const ids: string[] = [];
      for (let i = 0; i < 300; i += 50) {
        const batch = await Promise.all(Array.from({ length: 50 }, (_, j) => q.now(countJob, { key: `k${i + j}` })));
        ids.push(...batch.map((j) => j.id));
      }
      const ran = () => [...here.events, ...child.events].filter((e) => e.event === 'ran');
      await until(() => new Set(ran().map((e) => e.jobId)).size === 300, 'all 300 jobs to run', 60_000);
      await sleep(300);
      expect(ran()).toHaveLength(300);
      expect(new Set(ran().map((e) => e.jobId))).toEqual(new Set(ids));
      expect(child.events.some((e) => e.event === 'ran')).toBe(true);
      expect(here.events.length).toBeGreaterThan(0);
    });

    it('runs a job again after the lock of a SIGKILLed worker expires', async () => {
      const child = await spawnJobWorker({ ...harness.childEnv, WORKER_NAME: 'doomed' });
      children.push(child);
      const { q } = await producer();
      const job = await q.now(sleepJob, { sleepMs: 10 * 60_000, key: 'long' });
      await child.waitFor((e) => e.some((x) => x.jobId === job.id && x.event === 'started'), 'the child to start the long job');
      const held = await q.get(job.id);
      expect(held).toMatchObject({ state: 'running', lockedAt: expect.any(Date) });
      child.process.kill('SIGKILL');
      expect(await child.exited).toBe('SIGKILL');

      // Whoever starts now must wait for the dead worker's lock to expire, then runs the job.
      const rescuer = await worker('rescuer', { maxSleepMs: 0 });
      await until(() => ofJob(rescuer.events, job.id, 'finished').length === 1, 'the rescuer to run the job', 20_000);
      const [started] = ofJob(rescuer.events, job.id, 'started');
      // The last lock the dead worker took (a touch) is at least as recent as the one read above.
      expect(started!.at).toBeGreaterThanOrEqual(held!.lockedAt!.getTime() + SLEEP_LOCK_MS);
      await until(async () => (await q.get(job.id)) === null, 'the rescued job to complete');
    });

    it('graceful stop waits for the running job and hands back the jobs it locked but did not start', async () => {
      const a = await worker('w-a');
      const { q } = await producer();
      const jobs = [await q.now(gateJob, { key: '1' }), await q.now(gateJob, { key: '2' }), await q.now(gateJob, { key: '3' })];
      // test.gate runs one at a time; worker A locks all three and starts one.
      await until(() => a.events.some((e) => e.event === 'started'), 'worker A to start a job');
      await until(async () => (await q.counts('test.gate')).running === 3, 'worker A to hold all three');
      const running = a.events.find((e) => e.event === 'started')!.jobId;

      let stopped = false;
      const stopping = a.q.stop(10_000).then((r) => ((stopped = true), r));
      const stateOf = async () => Promise.all(jobs.map(async (j) => [j.id, (await q.get(j.id))?.state] as const));
      await until(
        async () => (await stateOf()).filter(([, state]) => state === 'queued').length === 2,
        'worker A to hand back the jobs it did not start',
      );
      expect(stopped).toBe(false); // still waiting for the running job
      const states = await stateOf();
      for (const [id, state] of states) expect(state).toBe(id === running ? 'running' : 'queued');

      a.open(running);
      expect(await stopping).toEqual({ finished: true, unfinished: [] });
      expect(ofJob(a.events, running, 'finished')).toHaveLength(1);
      expect(a.events.filter((e) => e.event === 'started')).toHaveLength(1);

      const b = await worker('w-b');
      for (const j of jobs) if (j.id !== running) b.open(j.id);
      await until(() => b.events.filter((e) => e.event === 'finished').length === 2, 'worker B to run the two handed-back jobs');
      expect(new Set(b.events.filter((e) => e.event === 'finished').map((e) => e.jobId))).toEqual(
        new Set(jobs.map((j) => j.id).filter((id) => id !== running)),
      );
    });

    it('a worker process stopped with SIGTERM finishes its running job, hands back the rest and exits', async () => {
      const child = await spawnJobWorker({ ...harness.childEnv, WORKER_NAME: 'leaving' });
      children.push(child);
      const { q } = await producer();
      // test.gate holds the child's running job until the child is told to stop (test/support/job-worker.ts).
      const jobs = [await q.now(gateJob, { key: '1' }), await q.now(gateJob, { key: '2' }), await q.now(gateJob, { key: '3' })];
      await child.waitFor((e) => e.some((x) => x.event === 'started'), 'the child to start a job');
      await until(async () => (await q.counts('test.gate')).running === 3, 'the child to hold all three');
      child.process.kill('SIGTERM');
      expect(await child.exited).toBe(0);
      const started = child.events.filter((e) => e.event === 'started').map((e) => e.jobId);
      expect(started).toHaveLength(1);
      expect(child.events.filter((e) => e.event === 'finished').map((e) => e.jobId)).toEqual(started);
      expect(child.events.find((e) => e.event === 'stopped')).toMatchObject({ finished: true });
      // Handed back at once, not left to expire.
      for (const j of jobs) {
        const status = await q.get(j.id);
        if (j.id === started[0]) expect(status).toBeNull();
        else expect(status).toMatchObject({ state: 'queued', lockedAt: null });
      }
    });
  });
}
