/** Where a search request's time goes: timers around the search service's collaborators. */
import type { SearchMode } from '../../server/ports/search-index.js';
import { percentile } from '../harness/metrics.js';
import type { Bench, Tenant } from './bench-server.js';
import type { RunContext } from './context.js';
import { la, latency, type Latency } from './figures.js';
import { searchPath, type PassResult } from './load-generator.js';

export interface StageProfile {
  requests: number;
  clientLatency: Latency;
  /** CPU time of the process (server + client thread) per request. */
  cpuMsPerRequest: number;
  /** Mean ms per request in each stage (sequential requests, one client). */
  meanMs: { total: number; auth: number; usage: number; embedding: number; index: number; resolveHits: number; httpAndRest: number };
  p50Ms: { embedding: number; index: number; resolveHits: number };
  loadavg: number[];
}

/**
 * One client, sequential requests, with timers around the service's collaborators (same objects the
 * search service holds). `httpAndRest` = client latency minus the timed stages: HTTP parsing, the HTTP layer
 * middleware (request id, logging, helmet, metrics), tRPC/OpenAPI routing, zod validation and output
 * serialisation, and building the response objects.
 */
export async function profile(ctx: RunContext, b: Bench, t: Tenant, mode: SearchMode): Promise<StageProfile> {
  const s = b.server.services;
  const stages = {
    auth: [] as number[],
    usage: [] as number[],
    embedding: [] as number[],
    index: [] as number[],
    resolveHits: [] as number[],
  };
  const restore: (() => void)[] = [];
  const wrap = <T extends object>(obj: T, name: keyof T & string, into: number[]) => {
    const own = Object.prototype.hasOwnProperty.call(obj, name);
    const orig = (obj as Record<string, unknown>)[name] as (...a: unknown[]) => Promise<unknown>;
    (obj as Record<string, unknown>)[name] = async (...a: unknown[]) => {
      const t0 = performance.now();
      try {
        return await orig.apply(obj, a);
      } finally {
        into.push(performance.now() - t0);
      }
    };
    restore.push(() => {
      if (own) (obj as Record<string, unknown>)[name] = orig;
      else delete (obj as Record<string, unknown>)[name];
    });
  };
  wrap(s.apiKeyAuth, 'authenticate', stages.auth);
  wrap(s.usage, 'recordSearch', stages.usage);
  wrap(s.embedder, 'embed', stages.embedding);
  wrap(s.ports.searchIndex, 'search', stages.index);
  wrap(s.memories, 'resolveHits', stages.resolveHits);
  let r: PassResult;
  let cpuMs: number;
  try {
    const paths = ctx.queries.slice(0, ctx.settings.profileRequests).map((q) => searchPath(q, mode));
    // Warm-up outside the timers' arrays would need a second pass; instead drop the first 5 samples.
    const c0 = process.cpuUsage();
    r = await ctx.gen.run(b.port, t.key!, paths, [], 1);
    const c = process.cpuUsage(c0);
    cpuMs = (c.user + c.system) / 1000 / paths.length;
  } finally {
    for (const f of restore.reverse()) f();
  }
  const drop = Math.min(5, r.lat.length - 1);
  const keep = (xs: number[]) => xs.slice(drop);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, c) => a + c, 0) / xs.length : 0);
  const lat = keep(r.lat);
  const m = {
    total: mean(lat),
    auth: mean(keep(stages.auth)),
    usage: mean(keep(stages.usage)),
    embedding: mean(keep(stages.embedding)),
    index: mean(keep(stages.index)),
    resolveHits: mean(keep(stages.resolveHits)),
    httpAndRest: 0,
  };
  m.httpAndRest = m.total - m.auth - m.usage - m.embedding - m.index - m.resolveHits;
  return {
    requests: lat.length,
    clientLatency: latency(lat),
    cpuMsPerRequest: cpuMs,
    meanMs: m,
    p50Ms: {
      embedding: percentile(keep(stages.embedding), 50),
      index: percentile(keep(stages.index), 50),
      resolveHits: percentile(keep(stages.resolveHits), 50),
    },
    loadavg: la(),
  };
}
