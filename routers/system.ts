import { z } from 'zod';
import { publicProcedure } from '../server/procedures.js';
import { router } from '../server/trpc.js';
import { version } from '../server/version.js';

/** Service identity for typed clients (the REST surface has /healthz for the same purpose). */
export const systemRouter = router({
  info: publicProcedure
    .output(z.object({ name: z.literal('tenant-memory'), version: z.string(), storage: z.enum(['embedded', 'mongo']) }))
    .query(({ ctx }) => ({ name: 'tenant-memory' as const, version, storage: ctx.services.config.STORAGE })),
});
