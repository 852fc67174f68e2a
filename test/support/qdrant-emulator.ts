import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { evaluateFormula } from './qdrant-formula.js';
import { matchesFilter } from './qdrant-filter-match.js';

/**
 * An in-process stand-in for a Qdrant server, speaking its REST API to the real
 * `@qdrant/js-client-rest`, for the part of the API the search index adapter uses: collections,
 * payload indexes, points (upsert, also conditional on `update_filter`, retrieve, delete, set
 * payload), count, facet, and the Query API (nearest on dense and sparse vectors, the `idf` sparse
 * modifier, prefetch with RRF or a formula, order_by), single and batched. Semantics follow Qdrant's source where they decide a ranking:
 * cosine on float32 normalised vectors, sparse dot products in float32, the IDF modifier
 * ln(1 + (N − n + 0.5)/(n + 0.5)) over every point of the collection, weighted RRF
 * 1/((position + 1)/weight + k − 1) (lib/segment/src/common/reciprocal_rank_fusion.rs), formulas as
 * `qdrant-formula.ts` evaluates them, a prefetch that missed a point scoring 0. Equal scores are
 * ordered by point id, which Qdrant leaves unspecified.
 *
 * It lets the search index contract and the cross-profile parity test run on this machine, where no
 * Qdrant can be installed. It is no substitute for a real server (HNSW, segments, consistency, wire
 * details it does not check): the same suites run against one wherever QDRANT_URL is set.
 */

type Sparse = { indices: number[]; values: number[] };
type Vectors = Record<string, number[] | Sparse>;
interface Point {
  id: string;
  vector: Vectors;
  payload: Record<string, unknown>;
}
interface Collection {
  config: { vectors: Record<string, { size: number; distance: string }>; sparse_vectors: Record<string, { modifier?: string }> };
  indexes: Record<string, unknown>;
  points: Map<string, Point>;
}
interface Scored {
  id: string;
  score: number;
}
type Query = Record<string, unknown>;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class QdrantEmulator {
  readonly collections = new Map<string, Collection>();
  version = '1.17.0';
  /** Requests served, by `METHOD /path` with the collection name replaced by `{c}`. */
  readonly log: string[] = [];
  /** Requests (`METHOD /path` as in `log`) to answer with a 503 instead, once each: a fault injected by a test. */
  readonly failures: string[] = [];
  private server: Server | null = null;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(
        (result) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(result.raw ?? { result: result.result, status: 'ok', time: 0 }));
        },
        (err: unknown) => {
          const status = err instanceof HttpError ? err.status : 500;
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ status: { error: err instanceof Error ? err.message : String(err) }, time: 0 }));
        },
      );
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage): Promise<{ result?: unknown; raw?: unknown }> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    if (url.pathname === '/') return { raw: { title: 'qdrant - vector search engine (emulated)', version: this.version } };
    const m = /^\/collections\/([^/]+)(\/.*)?$/.exec(url.pathname);
    if (!m) throw new HttpError(404, `no route ${method} ${url.pathname}`);
    const name = decodeURIComponent(m[1]!);
    const rest = m[2] ?? '';
    const route = `${method} /collections/{c}${rest}`;
    this.log.push(route);
    const fault = this.failures.indexOf(route);
    if (fault >= 0) {
      this.failures.splice(fault, 1);
      throw new HttpError(503, `emulator: injected failure of ${route}`);
    }
    if (rest === '/exists') return { result: { exists: this.collections.has(name) } };
    if (rest === '' && method === 'PUT') return { result: this.create(name, body) };
    if (rest === '' && method === 'DELETE') return { result: this.collections.delete(name) };
    const c = this.collections.get(name);
    if (!c) throw new HttpError(404, `Collection \`${name}\` doesn't exist!`);
    if (rest === '' && method === 'GET') {
      return {
        result: {
          status: 'green',
          optimizer_status: 'ok',
          segments_count: 1,
          config: { params: c.config, hnsw_config: {}, optimizer_config: {} },
          payload_schema: c.indexes,
        },
      };
    }
    if (rest === '/index' && method === 'PUT') {
      c.indexes[body.field_name as string] = body.field_schema;
      return { result: { operation_id: 0, status: 'completed' } };
    }
    if (rest === '/points' && method === 'PUT') {
      // A conditional upsert (Qdrant 1.16): an existing point the update_filter rejects keeps its state; a new one is inserted.
      for (const p of body.points as Point[]) {
        const id = String(p.id);
        const stored = c.points.get(id);
        if (stored && body.update_filter && !matchesFilter(body.update_filter, stored.payload, id)) continue;
        c.points.set(id, { id, vector: p.vector ?? {}, payload: { ...p.payload } });
      }
      return { result: { operation_id: 0, status: 'completed' } };
    }
    if (rest === '/points' && method === 'POST') {
      const ids = (body.ids as unknown[]).map(String);
      return {
        result: ids.flatMap((id) => (c.points.has(id) ? [this.record(c.points.get(id)!, body.with_payload, body.with_vector)] : [])),
      };
    }
    if (rest === '/points/delete') {
      const doomed = body.filter
        ? [...c.points.values()].filter((p) => matchesFilter(body.filter, p.payload, p.id)).map((p) => p.id)
        : (body.points as unknown[]).map(String);
      for (const id of doomed) c.points.delete(id);
      return { result: { operation_id: 0, status: 'completed' } };
    }
    if (rest === '/points/payload' && method === 'POST') {
      const ids = body.filter
        ? [...c.points.values()].filter((p) => matchesFilter(body.filter, p.payload, p.id)).map((p) => p.id)
        : (body.points as unknown[]).map(String);
      for (const id of ids) {
        const p = c.points.get(id);
        if (p) Object.assign(p.payload, body.payload);
      }
      return { result: { operation_id: 0, status: 'completed' } };
    }
    if (rest === '/points/count') return { result: { count: this.matching(c, body.filter).length } };
    if (rest === '/facet') return { result: { hits: this.facet(c, body) } };
    if (rest === '/points/query') return { result: { points: this.query(c, body).map((s) => this.scored(c, s, body)) } };
    if (rest === '/points/query/batch') {
      return { result: (body.searches as Query[]).map((q) => ({ points: this.query(c, q).map((s) => this.scored(c, s, q)) })) };
    }
    throw new HttpError(404, `no route ${method} ${url.pathname}`);
  }

  private create(name: string, body: Record<string, unknown>): boolean {
    if (this.collections.has(name)) throw new HttpError(409, `Collection \`${name}\` already exists!`);
    this.collections.set(name, {
      config: {
        vectors: (body.vectors ?? {}) as Collection['config']['vectors'],
        sparse_vectors: (body.sparse_vectors ?? {}) as Collection['config']['sparse_vectors'],
      },
      indexes: {},
      points: new Map(),
    });
    return true;
  }

  private matching(c: Collection, filter: unknown): Point[] {
    return [...c.points.values()].filter((p) => matchesFilter(filter, p.payload, p.id));
  }

  private facet(c: Collection, body: Record<string, unknown>): { value: unknown; count: number }[] {
    const key = body.key as string;
    if (!c.indexes[key]) throw new HttpError(400, `Index required but not found for "${key}"`);
    const counts = new Map<unknown, number>();
    for (const p of this.matching(c, body.filter)) {
      const raw = p.payload[key];
      for (const v of new Set(Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw]))
        counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    return [...counts]
      .map(([value, count]) => ({ value, count }))
      .sort((a, b) => b.count - a.count || String(a.value).localeCompare(String(b.value)))
      .slice(0, (body.limit as number | undefined) ?? 10);
  }

  /** One Query API request (or prefetch), best first. */
  private query(c: Collection, q: Query, outer?: unknown): Scored[] {
    const filter = and(q.filter, outer);
    const limit = (q.limit as number | undefined) ?? 10;
    const offset = (q.offset as number | undefined) ?? 0;
    const prefetch = q.prefetch === undefined || q.prefetch === null ? [] : Array.isArray(q.prefetch) ? q.prefetch : [q.prefetch];
    const sub = prefetch.map((p) => this.query(c, p as Query, filter));
    const query = q.query as unknown;
    let out: Scored[];
    if (query && typeof query === 'object' && 'formula' in query) {
      const f = query as { formula: unknown; defaults?: Record<string, unknown> };
      const scores = sub.map((s) => new Map(s.map((x) => [x.id, x.score])));
      const ids = new Set(sub.flatMap((s) => s.map((x) => x.id)));
      out = [...ids].map((id) => ({
        id,
        score: evaluateFormula(f.formula, { score: (i) => scores[i]?.get(id), payload: c.points.get(id)!.payload }, f.defaults ?? {}),
      }));
    } else if (query && typeof query === 'object' && ('rrf' in query || (query as { fusion?: string }).fusion === 'rrf')) {
      const rrf = ((query as { rrf?: { k?: number; weights?: number[] } }).rrf ?? {}) as { k?: number; weights?: number[] };
      const k = rrf.k ?? 2;
      const fused = new Map<string, number>();
      sub.forEach((list, i) => {
        const w = rrf.weights?.[i] ?? 1;
        list.forEach((x, pos) => fused.set(x.id, (fused.get(x.id) ?? 0) + Math.fround(1 / ((pos + 1) / w + k - 1))));
      });
      out = [...fused].map(([id, score]) => ({ id, score }));
    } else if (query && typeof query === 'object' && 'order_by' in query) {
      const ob = (query as { order_by: { key: string; direction?: string } }).order_by;
      if (!c.indexes[ob.key]) throw new HttpError(400, `No range index for \`order_by\` key: \`${ob.key}\``);
      const value = (p: Point) => {
        const v = p.payload[ob.key];
        return typeof v === 'number' ? v : Date.parse(String(v));
      };
      const sign = ob.direction === 'desc' ? -1 : 1;
      return this.matching(c, filter)
        .sort((a, b) => sign * (value(a) - value(b)) || (a.id < b.id ? -1 : 1))
        .slice(offset, offset + limit)
        .map((p) => ({ id: p.id, score: 0 }));
    } else if (Array.isArray(query)) {
      out = this.nearestDense(c, query as number[], q.using as string, filter);
    } else if (query && typeof query === 'object' && 'indices' in query) {
      out = this.nearestSparse(c, query as Sparse, q.using as string, filter);
    } else {
      throw new HttpError(400, `emulator: unsupported query ${JSON.stringify(query)}`);
    }
    return out
      .filter((s) => matchesFilter(filter, c.points.get(s.id)!.payload, s.id))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(offset, offset + limit);
  }

  private nearestDense(c: Collection, query: number[], using: string, filter: unknown): Scored[] {
    const q = normalised(query);
    return this.matching(c, filter).flatMap((p) => {
      const v = p.vector[using];
      if (!Array.isArray(v)) return [];
      const x = normalised(v);
      let dot = 0;
      for (let i = 0; i < q.length; i++) dot = Math.fround(dot + Math.fround(q[i]! * x[i]!));
      return [{ id: p.id, score: dot }];
    });
  }

  private nearestSparse(c: Collection, query: Sparse, using: string, filter: unknown): Scored[] {
    const idf = c.config.sparse_vectors[using]?.modifier === 'idf';
    const all = [...c.points.values()];
    const weight = (dim: number) => {
      if (!idf) return 1;
      const n = all.filter((p) => {
        const v = p.vector[using] as Sparse | undefined;
        return v && !Array.isArray(v) && v.indices.includes(dim);
      }).length;
      return Math.log(1 + (all.length - n + 0.5) / (n + 0.5));
    };
    const qw = query.indices.map((d, i) => Math.fround(Math.fround(query.values[i]!) * weight(d)));
    return this.matching(c, filter).flatMap((p) => {
      const v = p.vector[using] as Sparse | undefined;
      if (!v || Array.isArray(v)) return [];
      let score = 0;
      let overlap = false;
      query.indices.forEach((d, i) => {
        const at = v.indices.indexOf(d);
        if (at < 0) return;
        overlap = true;
        score = Math.fround(score + Math.fround(qw[i]! * Math.fround(v.values[at]!)));
      });
      return overlap ? [{ id: p.id, score }] : [];
    });
  }

  private record(p: Point, withPayload: unknown, withVector: unknown) {
    return { id: p.id, version: 1, payload: pick(p.payload, withPayload), vector: withVector ? p.vector : null };
  }

  private scored(c: Collection, s: Scored, q: Query) {
    const p = c.points.get(s.id)!;
    return { id: p.id, version: 1, score: s.score, payload: pick(p.payload, q.with_payload), vector: q.with_vector ? p.vector : null };
  }
}

function and(a: unknown, b: unknown): unknown {
  if (!a) return b;
  if (!b) return a;
  const x = a as { must?: unknown[]; must_not?: unknown[] };
  const y = b as { must?: unknown[]; must_not?: unknown[] };
  return { must: [...(x.must ?? []), ...(y.must ?? [])], must_not: [...(x.must_not ?? []), ...(y.must_not ?? [])] };
}

function normalised(v: readonly number[]): number[] {
  const norm = Math.sqrt(v.reduce((a, x) => a + x * x, 0)) || 1;
  return v.map((x) => Math.fround(x / norm));
}

function pick(payload: Record<string, unknown>, spec: unknown): Record<string, unknown> | null {
  if (spec === true) return { ...payload };
  if (Array.isArray(spec)) return Object.fromEntries(spec.filter((k: string) => k in payload).map((k: string) => [k, payload[k]]));
  return null;
}
