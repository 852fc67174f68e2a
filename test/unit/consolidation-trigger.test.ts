import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Writable } from 'node:stream';
import { createConsolidationTrigger, TRIGGER_SLOT_MS } from '../../jobs/definitions/consolidate-writes.js';
import { createLogger } from '../../server/logger.js';
import type { JobQueue } from '../../server/ports/job-queue.js';

const logger = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

describe('consolidation trigger', () => {
  let now = 0;
  let fired: { tenantId: string; slot: number }[];
  let trigger: (tenantId: string) => void;
  beforeEach(() => {
    vi.useFakeTimers();
    now = 10;
    fired = [];
    const jobs = {
      now: async (_job: unknown, payload: { tenantId: string; slot: number }) => {
        fired.push(payload);
        return { id: String(fired.length), name: 'memory.consolidate-writes', nextRunAt: null };
      },
    } as unknown as JobQueue;
    trigger = createConsolidationTrigger(() => jobs, logger, () => now);
  });
  afterEach(() => vi.useRealTimers());

  it('enqueues once per tenant and slot, and once more after a burst', async () => {
    trigger('t1');
    now = 40;
    trigger('t1');
    trigger('t1');
    trigger('t2');
    expect(fired).toEqual([
      { tenantId: 't1', slot: 0 },
      { tenantId: 't2', slot: 0 },
    ]);
    now = TRIGGER_SLOT_MS + 1;
    await vi.advanceTimersByTimeAsync(TRIGGER_SLOT_MS);
    expect(fired).toEqual([
      { tenantId: 't1', slot: 0 },
      { tenantId: 't2', slot: 0 },
      { tenantId: 't1', slot: 1 },
    ]);
  });

  it('never loses a write suppressed while a late trailing timer is pending', async () => {
    trigger('t'); // slot 0, enqueued
    now = 50;
    trigger('t'); // suppressed; trailing timer armed for the slot boundary
    now = TRIGGER_SLOT_MS + 20;
    trigger('t'); // a new slot: enqueued at once (covers the write at 50)
    now = TRIGGER_SLOT_MS + 30;
    trigger('t'); // suppressed again while the (late) timer is still pending
    await vi.advanceTimersByTimeAsync(TRIGGER_SLOT_MS);
    expect(fired.map((f) => f.slot)).toEqual([0, 1, 2]);
    // Nothing suppressed any more: no further enqueue.
    await vi.advanceTimersByTimeAsync(5 * TRIGGER_SLOT_MS);
    expect(fired).toHaveLength(3);
  });
});
