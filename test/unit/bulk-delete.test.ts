import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BULK_DELETE_BATCH } from '../../server/services/memories/bulk-delete.js';
import { createMemoryStack, type MemoryStack } from '../support/memory-stack.js';

/**
 * Bulk deletion in batches, over the production wiring of the embedded profile: one call deletes at
 * most BULK_DELETE_BATCH memories and says whether more match; the next call takes the rest.
 */
let stack: MemoryStack;
beforeEach(() => {
  stack = createMemoryStack();
});
afterEach(async () => {
  await stack.close();
});

const by = { actor: { userId: randomUUID() }, ip: null, userAgent: null };

describe('bulk deletion batches', () => {
  it('deletes at most one batch a call, reports has_more, and finishes on the next call', async () => {
    const tenant = randomUUID();
    const caller = stack.caller(tenant);
    const extra = 3;
    for (let i = 0; i < BULK_DELETE_BATCH + extra; i++) {
      await stack.service.create(caller, { content: `memory ${i}`, sensitivity: i % 2 === 0 ? 'high' : 'low' });
    }
    const otherTenant = randomUUID();
    const keep = await stack.service.create(stack.caller(otherTenant), { content: 'another tenant' });
    const bulk = stack.service.bulkDelete;
    expect(await bulk.preview(caller, { all: true })).toBe(BULK_DELETE_BATCH + extra);
    expect(await bulk.preview(caller, { filter: { sensitivity: 'high' } })).toBe(Math.ceil((BULK_DELETE_BATCH + extra) / 2));

    expect(await bulk.delete(caller, { all: true }, by)).toEqual({ deleted: BULK_DELETE_BATCH, hasMore: true });
    expect(await bulk.preview(caller, { all: true })).toBe(extra);
    // The newest go first: what is left is the oldest.
    const left = await stack.service.list(caller, { limit: 10, offset: 0 });
    expect(left.items.map((m) => m.content).sort()).toEqual(['memory 0', 'memory 1', 'memory 2']);
    expect(await bulk.delete(caller, { all: true }, by)).toEqual({ deleted: extra, hasMore: false });
    expect(await bulk.delete(caller, { all: true }, by)).toEqual({ deleted: 0, hasMore: false });
    expect(await stack.memories.get(otherTenant, keep.memoryId)).toMatchObject({ content: 'another tenant' });
  }, 60_000);
});
