import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Writable } from 'node:stream';
import {
  createConsolidationTrigger,
  TRIGGER_COVER_MS,
  type ConsolidationTrigger,
} from '../../server/services/memories/consolidation-trigger.js';
import { createLogger } from '../../server/logger.js';
import type { JobQueue } from '../../server/ports/job-queue.js';

const logger = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

describe('consolidation trigger', () => {
  let now = 0;
  let fired: { tenantId: string; at: number }[];
  let trigger: ConsolidationTrigger;
  beforeEach(() => {
    vi.useFakeTimers();
    now = 1_000;
    fired = [];
    const jobs = {
      now: async (_job: unknown, payload: { tenantId: string; slot: number }) => {
        fired.push({ tenantId: payload.tenantId, at: payload.slot });
        return { id: String(fired.length), name: 'memory.consolidate-writes', nextRunAt: null };
      },
    } as unknown as JobQueue;
    trigger = createConsolidationTrigger(
      () => jobs,
      logger,
      () => now,
    );
  });
  afterEach(() => vi.useRealTimers());

  it('enqueues at once, lets a pending job cover a burst, and enqueues once more after it', async () => {
    trigger.queued('t1');
    now += 10;
    trigger.queued('t1');
    trigger.queued('t1');
    trigger.queued('t2');
    expect(fired.map((f) => f.tenantId)).toEqual(['t1', 't2']);
    now += TRIGGER_COVER_MS;
    await vi.advanceTimersByTimeAsync(TRIGGER_COVER_MS);
    expect(fired.map((f) => f.tenantId)).toEqual(['t1', 't2', 't1']);
    await vi.advanceTimersByTimeAsync(10 * TRIGGER_COVER_MS);
    expect(fired).toHaveLength(3);
  });

  it('drops the trailing enqueue when a drain read the queue, and enqueues at once after that drain ended', async () => {
    trigger.queued('t');
    now += 5;
    trigger.queued('t'); // suppressed: the job just enqueued has not started
    trigger.drainStarted('t'); // …now it reads the queue: the suppressed write is covered
    trigger.drainEnded('t');
    await vi.advanceTimersByTimeAsync(2 * TRIGGER_COVER_MS);
    expect(fired).toHaveLength(1);
    now += 5;
    trigger.queued('t'); // no drain running, none pending: a new job at once
    expect(fired).toHaveLength(2);
  });

  it('never loses a write suppressed while a late trailing timer is pending', async () => {
    trigger.queued('t'); // enqueued
    now += 50;
    trigger.queued('t'); // suppressed; trailing timer armed
    now += TRIGGER_COVER_MS; // the timer is late
    trigger.queued('t'); // the window passed: enqueued at once (covers the write at +50)
    now += 10;
    trigger.queued('t'); // suppressed again while the late timer is still pending
    await vi.advanceTimersByTimeAsync(3 * TRIGGER_COVER_MS);
    expect(fired).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(10 * TRIGGER_COVER_MS);
    expect(fired).toHaveLength(3);
  });
});

describe('consolidation trigger beside a running drain', () => {
  it('enqueues nothing while a drain runs, and once when it ends if a write came after its last read', async () => {
    vi.useFakeTimers();
    try {
      let now = 1_000;
      const fired: number[] = [];
      const jobs = {
        now: async (_job: unknown, payload: { slot: number }) => {
          fired.push(payload.slot);
          return { id: String(fired.length), name: 'memory.consolidate-writes', nextRunAt: null };
        },
      } as unknown as JobQueue;
      const trigger = createConsolidationTrigger(
        () => jobs,
        logger,
        () => now,
      );
      trigger.drainStarted('t');
      for (let i = 0; i < 50; i++) {
        now += 7;
        trigger.queued('t');
      }
      trigger.drainStarted('t'); // the drain read the queue again: all 50 covered
      trigger.drainEnded('t');
      await vi.advanceTimersByTimeAsync(10 * TRIGGER_COVER_MS);
      expect(fired).toEqual([]);
      trigger.drainStarted('t');
      trigger.queued('t'); // after the drain's last read
      trigger.drainEnded('t');
      expect(fired).toHaveLength(1);
      now += 1;
      trigger.queued('t'); // the job just enqueued covers it
      await vi.advanceTimersByTimeAsync(10 * TRIGGER_COVER_MS);
      expect(fired).toHaveLength(2); // …and the trailing enqueue after its window, as no drain was seen
    } finally {
      vi.useRealTimers();
    }
  });
});
