import type { UsageDay } from './ports/usage.js';

const DAY_MS = 86_400_000;

/** The UTC day (`YYYY-MM-DD`) of an instant. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * The `count` UTC days ending with the day of `nowMs`, oldest first, one entry each: the stored days
 * where there are some, zeros elsewhere (the store leaves out days without a counted request).
 * Written once for both storage profiles.
 */
export function dailyHistory(nowMs: number, count: number, stored: readonly UsageDay[]): UsageDay[] {
  const byDay = new Map(stored.map((d) => [d.day, d]));
  const out: UsageDay[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const day = utcDay(nowMs - i * DAY_MS);
    const s = byDay.get(day);
    out.push({ day, writes: s?.writes ?? 0, reads: s?.reads ?? 0, searches: s?.searches ?? 0 });
  }
  return out;
}

/** The first and last day of `dailyHistory(nowMs, count, …)`. */
export const historyBounds = (nowMs: number, count: number) => ({ from: utcDay(nowMs - (count - 1) * DAY_MS), to: utcDay(nowMs) });
