import type { PlanLimit, PlanLimits } from '../schemas/plan-limits.js';
import { AppError } from '../errors.js';
import type { UsageDay, UsageStore } from '../ports/usage.js';
import { dailyHistory, historyBounds } from '../usage-days.js';
import type { WriteQuota } from '../ports/write-queue.js';
import type { Clock } from './clock.js';
import type { AllowedNamespaces } from '../namespace-access.js';

/** The usage period of an instant: its calendar month in UTC, `YYYY-MM`. */
export function usagePeriod(ms: number): string {
  // Every write, read and search asks; a month's answer is kept instead of formatting a date each time.
  if (ms >= periodCache.from && ms < periodCache.until) return periodCache.period;
  const d = new Date(ms);
  const period = d.toISOString().slice(0, 7);
  periodCache = { period, from: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), until: nextPeriodStart(ms) };
  return period;
}
let periodCache = { period: '', from: 0, until: 0 };

/** The start (ms) of the period after the one containing `ms`. */
export function nextPeriodStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** Whole seconds from `ms` to the start of the next period (at least 1). */
export function secondsToPeriodEnd(ms: number): number {
  return Math.max(1, Math.ceil((nextPeriodStart(ms) - ms) / 1000));
}

export interface UsageReport {
  period: string;
  plan: string;
  limits: PlanLimit;
  /** The namespaces the counts cover; null: the whole tenant. */
  namespaces: string[] | null;
  memoryCount: number;
  storageUsedBytes: number;
  /** The period counters are kept per tenant only: null (withheld) when the report covers some namespaces. */
  writes: number | null;
  reads: number | null;
  searches: number | null;
  pendingWrites: number;
  /** RFC 3339: when the counters start again. */
  periodEndsAt: string;
}

export interface UsageService {
  /** Write limits to check inside the enqueue transaction. */
  writeQuota(tenantId: string): Promise<WriteQuota>;
  /** Counts one read, or throws 429 QUOTA_EXCEEDED (with Retry-After) when the plan's reads are used up. */
  recordRead(tenantId: string): Promise<void>;
  /** Counts one search, or throws 429 QUOTA_EXCEEDED; for the search route. */
  recordSearch(tenantId: string): Promise<void>;
  /**
   * Current counters, totals and limits (for GET /usage and the portal dashboard). With `namespaces`
   * (a restricted key's), memories, bytes and pending writes count those namespaces only, and the
   * tenant-wide period counters are withheld, so the key learns nothing of namespaces it cannot read.
   */
  snapshot(tenantId: string, namespaces?: AllowedNamespaces): Promise<UsageReport>;
  /** The tenant's last `days` UTC days ending today, oldest first, one entry per day (zeros where nothing was counted). */
  history(tenantId: string, days: number): Promise<UsageDay[]>;
  /** The 429 a caller gets when a limit is reached. */
  quotaExceeded(what: 'writes' | 'reads' | 'searches' | 'storage' | 'memories'): AppError;
}

export interface UsageServiceDeps {
  store: UsageStore;
  limits: PlanLimits;
  /** The tenant's plan name (`free` when unknown). */
  planName(tenantId: string): Promise<string | null>;
  clock: Clock;
  /** How long a tenant's plan name is cached in-process (default 30 s). */
  planCacheMs?: number;
}

const FALLBACK_PLAN = 'free';

export function createUsageService(deps: UsageServiceDeps): UsageService {
  const cacheMs = deps.planCacheMs ?? 30_000;
  const plans = new Map<string, { plan: string; until: number }>();

  const limitsOf = (plan: string): PlanLimit =>
    deps.limits[plan] ?? deps.limits[FALLBACK_PLAN] ?? { writes: null, reads: null, searches: null, storage_bytes: null, memories: null };

  async function planOf(tenantId: string) {
    const now = deps.clock();
    let cached = plans.get(tenantId);
    if (!cached || cached.until <= now) {
      cached = { plan: (await deps.planName(tenantId)) ?? FALLBACK_PLAN, until: now + cacheMs };
      if (plans.size > 10_000) plans.clear();
      plans.set(tenantId, cached);
    }
    return { plan: cached.plan, limits: limitsOf(cached.plan) };
  }

  function quotaExceeded(what: 'writes' | 'reads' | 'searches' | 'storage' | 'memories'): AppError {
    const retryAfterSeconds = secondsToPeriodEnd(deps.clock());
    const message =
      what === 'storage'
        ? "the plan's storage limit is reached: delete memories or upgrade the plan"
        : what === 'memories'
          ? "the plan's memory count limit is reached: delete memories or upgrade the plan"
          : `the plan's ${what} for this period are used up; the period ends in ${retryAfterSeconds} s`;
    return new AppError('QUOTA_EXCEEDED', message, { retryAfterSeconds });
  }

  async function consume(tenantId: string, counter: 'reads' | 'searches') {
    const { limits } = await planOf(tenantId);
    const counted = await deps.store.consume(tenantId, usagePeriod(deps.clock()), counter, limits[counter]);
    if (counted === null) throw quotaExceeded(counter);
  }

  return {
    quotaExceeded,
    async writeQuota(tenantId) {
      const { limits } = await planOf(tenantId);
      return { period: usagePeriod(deps.clock()), writes: limits.writes, storageBytes: limits.storage_bytes, memories: limits.memories };
    },
    recordRead: (tenantId) => consume(tenantId, 'reads'),
    recordSearch: (tenantId) => consume(tenantId, 'searches'),
    async history(tenantId, days) {
      const now = deps.clock();
      const { from, to } = historyBounds(now, days);
      return dailyHistory(now, days, await deps.store.days(tenantId, from, to));
    },
    async snapshot(tenantId, namespaces = null) {
      const now = deps.clock();
      const { plan, limits } = await planOf(tenantId);
      if (namespaces !== null) {
        const t = await deps.store.namespaceTotals(tenantId, namespaces);
        return {
          period: usagePeriod(now),
          plan,
          limits,
          namespaces: [...namespaces],
          memoryCount: t.memoryCount,
          storageUsedBytes: t.storageBytes,
          writes: null,
          reads: null,
          searches: null,
          pendingWrites: t.pendingWrites,
          periodEndsAt: new Date(nextPeriodStart(now)).toISOString(),
        };
      }
      const s = await deps.store.snapshot(tenantId, usagePeriod(now));
      return {
        period: s.period,
        plan,
        limits,
        namespaces: null,
        memoryCount: s.memoryCount,
        storageUsedBytes: s.storageBytes,
        writes: s.writes,
        reads: s.reads,
        searches: s.searches,
        pendingWrites: s.pendingWrites,
        periodEndsAt: new Date(nextPeriodStart(now)).toISOString(),
      };
    },
  };
}
