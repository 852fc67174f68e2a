/** How `bench:search-http` summarises and prints its figures. */
import { loadavg } from 'node:os';
import { latencyStats, type LatencyStats } from '../support/stats.js';

export interface Latency extends LatencyStats {
  max: number;
}

export function latency(xs: number[]): Latency {
  return { ...latencyStats(xs), max: Math.max(...xs) };
}

/** The machine's load average, printed beside every figure: other processes inflate wall-clock latencies. */
export const la = () => loadavg().map((x) => Number(x.toFixed(2)));
export const fmtLa = (l: number[]) => l.map((x) => x.toFixed(1)).join(' ');
export const f1 = (x: number) => x.toFixed(1);

export interface Comparison {
  queries: number;
  identicalLists: number;
  /** Mean |alone ∩ beside| / |alone| over queries (1 = same sets). */
  meanOverlap: number;
}

/** How alike two runs' result lists are, query by query. */
export function compare(a: string[][], b: string[][]): Comparison {
  let same = 0;
  let overlap = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.length === y.length && x.every((id, j) => id === y[j])) same++;
    const ys = new Set(y);
    overlap += x.length === 0 ? (y.length === 0 ? 1 : 0) : x.filter((id) => ys.has(id)).length / x.length;
  }
  return { queries: n, identicalLists: same, meanOverlap: overlap / Math.max(1, n) };
}
