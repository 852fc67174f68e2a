import { describe, expect, it, vi } from 'vitest';
import { OUTBOX_DRAIN_BUDGET_MS, drainIndexOutbox } from '../../jobs/definitions/drain-index-outbox.js';
import { jobDefinitions } from '../../jobs/definitions/index.js';
import type { JobServices } from '../../jobs/context.js';
import type { JobRunContext } from '../../jobs/definition.js';
import { createMetrics } from '../../server/http/metrics.js';
import { createRouteLabeler } from '../../server/http/route-labels.js';
import { drainIndexOutboxJob, jobCatalogue } from '../../server/jobs/catalogue.js';
import { outboxReadiness, type IndexOutboxService } from '../../server/services/search/index-outbox.js';

function run(indexOutbox: Partial<IndexOutboxService>) {
  const logged: string[] = [];
  const job = {
    id: 'j',
    name: drainIndexOutboxJob.name,
    attempt: 1,
    logger: { info: (_o: object, m: string) => logged.push(m), warn: (_o: object, m: string) => logged.push(m) },
    touch: vi.fn(async () => undefined),
    isCanceled: () => false,
  } as unknown as JobRunContext;
  const services = { indexOutbox } as unknown as JobServices;
  return { done: drainIndexOutbox.handler(undefined, services, job), logged, job };
}

describe('the index outbox drain job', () => {
  it('is a catalogue job with one recurring definition, scheduled every 30 seconds in every profile', () => {
    expect(jobCatalogue.drainIndexOutbox).toBe(drainIndexOutboxJob);
    expect(drainIndexOutboxJob.name).toBe('search.drain-index-outbox');
    const defined = jobDefinitions.filter((d) => d.name === drainIndexOutboxJob.name);
    expect(defined).toHaveLength(1);
    expect(defined[0]!.every).toEqual({ interval: '30 seconds', payload: {} });
    expect(defined[0]!.concurrency).toBe(1);
    // Its lock outlives a run's budget (and is renewed after every tenant).
    expect(defined[0]!.lockLifetimeMs).toBeGreaterThan(OUTBOX_DRAIN_BUDGET_MS);
  });

  it('drains every tenant with pending entries within its budget, renewing its lock after each', async () => {
    const drainPending = vi.fn(async (o: { budgetMs: number; onProgress?: () => void }) => {
      o.onProgress?.();
      o.onProgress?.();
      return { tenants: 2, applied: 5, failed: 0, poisoned: 0, outage: false, remaining: false };
    });
    const r = run({ enabled: true, drainPending });
    await r.done;
    expect(drainPending).toHaveBeenCalledWith(expect.objectContaining({ budgetMs: OUTBOX_DRAIN_BUDGET_MS }));
    expect(r.job.touch).toHaveBeenCalledTimes(2);
    expect(r.logged).toEqual(['search index outbox drained']);
  });

  it('says so when the index is down, and does nothing where there is no outbox', async () => {
    const down = run({
      enabled: true,
      drainPending: async () => ({ tenants: 0, applied: 0, failed: 0, poisoned: 0, outage: true, remaining: true }),
    });
    await down.done;
    expect(down.logged).toEqual(['search index unavailable: the outbox drain stops until its next run']);
    const drainPending = vi.fn();
    await run({ enabled: false, drainPending }).done;
    expect(drainPending).not.toHaveBeenCalled();
  });
});

describe('the outbox in /readyz and /metrics', () => {
  it.each([
    [null, 'ok'],
    [{ pending: 0, poisoned: 0 }, 'ok'],
    [{ pending: 12, poisoned: 0 }, '12 pending'],
    [{ pending: 3, poisoned: 2 }, '3 pending, 2 set aside after repeated failures (tenant-memory outbox retry)'],
  ])('readiness detail of %j: %s', (counts, text) => {
    expect(outboxReadiness(counts)).toBe(text);
  });

  it('exports pending and poisoned entries as a gauge read at each scrape, keeping the last values when the store fails', async () => {
    let counts: { pending: number; poisoned: number } | Error = { pending: 4, poisoned: 1 };
    const metrics = createMetrics(createRouteLabeler({ rest: [], procedures: [], fixed: [] }), {
      indexOutbox: async () => {
        if (counts instanceof Error) throw counts;
        return counts;
      },
    });
    const scrape = async () => (await metrics.registry.metrics()).split('\n').filter((l) => l.startsWith('index_outbox_entries'));
    expect(await scrape()).toEqual(['index_outbox_entries{state="pending"} 4', 'index_outbox_entries{state="poisoned"} 1']);
    counts = new Error('store down');
    expect(await scrape()).toEqual(['index_outbox_entries{state="pending"} 4', 'index_outbox_entries{state="poisoned"} 1']);
    expect(
      (await createMetrics(createRouteLabeler({ rest: [], procedures: [], fixed: [] })).registry.metrics()).includes('index_outbox'),
    ).toBe(false);
  });
});
