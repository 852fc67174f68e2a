import { z } from 'zod';

/**
 * Per-plan limits for one usage period (a calendar month, UTC). `null` means unlimited. Configured
 * with the `PLAN_LIMITS` environment variable as JSON; plans and fields not given keep the defaults,
 * e.g. `PLAN_LIMITS='{"free":{"writes":50000},"team":{"writes":null,"reads":null}}'`.
 */
export const planLimitSchema = z.object({
  writes: z.number().int().min(0).nullable(),
  reads: z.number().int().min(0).nullable(),
  searches: z.number().int().min(0).nullable(),
  storage_bytes: z.number().int().min(0).nullable(),
  memories: z.number().int().min(0).nullable(),
});

export type PlanLimit = z.output<typeof planLimitSchema>;
export type PlanLimits = Record<string, PlanLimit>;

export const DEFAULT_PLAN_LIMITS: PlanLimits = {
  free: { writes: 10_000, reads: 100_000, searches: 50_000, storage_bytes: 100 * 1024 * 1024, memories: null },
  pro: { writes: 1_000_000, reads: 10_000_000, searches: 5_000_000, storage_bytes: 10 * 1024 ** 3, memories: null },
  enterprise: { writes: null, reads: null, searches: null, storage_bytes: null, memories: null },
};

/** The `PLAN_LIMITS` variable: JSON merged over the defaults (unknown plans start from `free`). */
export const planLimitsEnv = z
  .string()
  .transform((v, ctx) => {
    try {
      return JSON.parse(v) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object of plan name → limits' });
      return z.NEVER;
    }
  })
  .pipe(z.record(z.string().regex(/^[a-z0-9_-]{1,40}$/i), planLimitSchema.partial().strict()))
  .transform((overrides): PlanLimits => {
    const merged: PlanLimits = { ...DEFAULT_PLAN_LIMITS };
    for (const [plan, limits] of Object.entries(overrides)) {
      merged[plan] = { ...(DEFAULT_PLAN_LIMITS[plan] ?? DEFAULT_PLAN_LIMITS.free!), ...limits };
    }
    return merged;
  });
