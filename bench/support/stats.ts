/**
 * Latency summaries shared by the performance benchmarks. Percentiles are the nearest-rank ones of
 * `bench/harness/metrics.ts`, so every bench reports an observed latency as its p50/p95/p99.
 */
import { percentile } from '../harness/metrics.js';

/** p50/p95/p99 and mean of a list of samples, in the samples' own unit, unrounded. */
export interface LatencyStats {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

/** Arithmetic mean; 0 for an empty list. */
export function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
}

export function latencyStats(xs: readonly number[]): LatencyStats {
  return {
    p50: percentile(xs, 50),
    p95: percentile(xs, 95),
    p99: percentile(xs, 99),
    mean: mean(xs),
  };
}

/** One table row of per-call latencies in microseconds, rounded to 0.1 µs. */
export interface MicrosRow {
  case: string;
  n: number;
  p50_us: number;
  p95_us: number;
  p99_us: number;
  mean_us: number;
}

/** Summarises samples taken in nanoseconds (`process.hrtime.bigint()` differences) as a µs row. */
export function summariseNsAsUs(name: string, samplesNs: readonly number[]): MicrosRow {
  const us = samplesNs.map((n) => n / 1000);
  const round = (v: number) => Math.round(v * 10) / 10;
  const s = latencyStats(us);
  return { case: name, n: us.length, p50_us: round(s.p50), p95_us: round(s.p95), p99_us: round(s.p99), mean_us: round(s.mean) };
}
