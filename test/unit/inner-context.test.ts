import { describe, expect, it } from 'vitest';
import { publicProcedure } from '../../server/procedures.js';
import { createCallerFactory, router } from '../../server/trpc.js';
import { createInnerContext } from '../support/context.js';

describe('createInnerContext (caller tests)', () => {
  const probe = router({
    echo: publicProcedure.query(({ ctx }) => ({ key: ctx.header('X-API-Key'), ip: ctx.ip, q: ctx.query('q') })),
    usage: publicProcedure.query(({ ctx }) => typeof ctx.services.usage),
  });

  it('answers headers case-insensitively, the query and the address from plain values', async () => {
    const caller = createCallerFactory(probe)(
      createInnerContext({ headers: { 'x-api-key': 'k1' }, query: { q: 'hello' }, ip: '10.0.0.1' }),
    );
    await expect(caller.echo()).resolves.toEqual({ key: 'k1', ip: '10.0.0.1', q: 'hello' });
  });

  it('names a service the test did not give when a procedure reaches for it', async () => {
    const caller = createCallerFactory(probe)(createInnerContext());
    await expect(caller.usage()).rejects.toThrow('no "usage" service');
  });
});
