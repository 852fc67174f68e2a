import type { GraphConfig } from '../../../server/services/search/tuning.js';
import { extractEntities, singularize } from '../../../server/text/entities.js';
import { queryTerms } from '../../../server/text/query-text.js';
import type { EmbeddedDatabase } from '../database.js';
import { preparedStatement } from '../statement-cache.js';
import type { TranslatedFilter } from './filter-translation.js';
import type { ChannelHit } from '../../../server/services/search/fusion.js';
import type { TenantCache } from './tenant-cache.js';

/**
 * The entity-graph channel: the query's entities and terms, their strongest co-occurring entities
 * (one hop), then the most recent memories mentioning them that pass the filter, scored by IDF.
 */
export function graphChannel(
  db: EmbeddedDatabase,
  c: TenantCache,
  text: string,
  depth: number,
  f: TranslatedFilter,
  g: GraphConfig,
): ChannelHit<number>[] {
  const tenantId = c.tenantId;
  const terms = queryTerms(text).map(singularize);
  const keys = new Set<string>(extractEntities(text, { max: 24 }).map((e) => e.key));
  for (const t of terms) keys.add(t);
  for (let i = 0; i + 1 < terms.length; i++) keys.add(`${terms[i]} ${terms[i + 1]}`);
  if (keys.size === 0) return [];
  const tenant = preparedStatement(db, 'SELECT doc_count FROM search_tenants WHERE tenant_id = ?').get([tenantId]) as
    { doc_count: number } | undefined;
  const n = Math.max(1, tenant?.doc_count ?? 0);
  const idf = (df: number) => Math.log(1 + n / Math.max(1, df));
  const seeds = (
    preparedStatement(
      db,
      `SELECT entity_id, doc_count FROM search_entities
       WHERE tenant_id = ? AND key IN (SELECT value FROM json_each(?)) AND doc_count > 0`,
    ).all([tenantId, JSON.stringify([...keys])]) as { entity_id: number; doc_count: number }[]
  ).filter((s) => s.doc_count <= g.maxDocFrequency);
  if (seeds.length === 0) return [];
  const weight = new Map<number, number>();
  const df = new Map<number, number>();
  for (const s of seeds) {
    weight.set(s.entity_id, idf(s.doc_count));
    df.set(s.entity_id, s.doc_count);
  }
  if (g.hopWeight > 0 && g.neighborsPerSeed > 0) {
    // The strongest co-occurrences of each seed (hubs mentioned everywhere are not expanded: their
    // neighbours say little), then the related entities' own frequencies.
    const strongest = preparedStatement(db, 'SELECT b, weight FROM search_edges WHERE a = ? ORDER BY weight DESC, b LIMIT ?');
    const edges: { a: number; b: number; w: number }[] = [];
    for (const s of seeds) {
      if (s.doc_count > g.maxExpandFrequency) continue;
      for (const e of strongest.all([s.entity_id, g.neighborsPerSeed * 4]) as { b: number; weight: number }[]) {
        edges.push({ a: s.entity_id, b: e.b, w: e.weight });
      }
    }
    const dfs = new Map(
      (
        preparedStatement(
          db,
          // `+tenant_id`: primary-key lookups, not a walk over every entity of the tenant.
          `SELECT entity_id, doc_count FROM search_entities WHERE +tenant_id = ? AND entity_id IN (SELECT value FROM json_each(?))`,
        ).all([tenantId, JSON.stringify([...new Set(edges.map((e) => e.b))])]) as { entity_id: number; doc_count: number }[]
      ).map((r) => [r.entity_id, r.doc_count]),
    );
    const bySeed = new Map<number, { b: number; score: number }[]>();
    for (const e of edges) {
      const edf = dfs.get(e.b);
      if (edf === undefined || edf > g.maxDocFrequency) continue;
      // Association: co-occurrences over the geometric mean of the two frequencies (cosine of the
      // incidence vectors), times the related entity's own specificity.
      const assoc = e.w / Math.sqrt(df.get(e.a)! * Math.max(1, edf));
      const list = bySeed.get(e.a) ?? [];
      list.push({ b: e.b, score: assoc * idf(edf) });
      bySeed.set(e.a, list);
    }
    for (const [, list] of bySeed) {
      list.sort((x, y) => y.score - x.score || x.b - y.b);
      for (const { b, score } of list.slice(0, g.neighborsPerSeed)) {
        const w = g.hopWeight * score;
        if (w > (weight.get(b) ?? 0)) weight.set(b, w);
      }
    }
  }
  // Per entity, its most recent mentions that pass the filters (bounded, so a common entity costs at
  // most maxMentionsPerEntity rows). Entities are read strongest first. The mentions are filtered here
  // against the cache; when the filter drops some of a full page, that entity is read again with the
  // filter in SQL.
  const recent = preparedStatement(db, 'SELECT doc_id FROM search_mentions WHERE entity_id = ? ORDER BY doc_id DESC LIMIT ?');
  const recentFiltered = preparedStatement(
    db,
    `SELECT m.doc_id AS doc_id FROM search_mentions m CROSS JOIN search_docs d ON d.doc_id = m.doc_id
     WHERE m.entity_id = ? AND ${f.sql} ORDER BY m.doc_id DESC LIMIT ?`,
  );
  const rows: { entity_id: number; doc_id: number }[] = [];
  for (const [entity] of [...weight.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 24)) {
    const page = recent.all([entity, g.maxMentionsPerEntity]) as { doc_id: number }[];
    let kept = page.filter((r) => c.acceptsDoc(r.doc_id, f.filter));
    if (kept.length < page.length && page.length === g.maxMentionsPerEntity) {
      kept = (recentFiltered.all([entity, ...f.params, g.maxMentionsPerEntity]) as { doc_id: number }[]).filter((r) =>
        c.acceptsDoc(r.doc_id, f.filter),
      );
    }
    for (const r of kept) rows.push({ entity_id: entity, doc_id: r.doc_id });
  }
  const scores = new Map<number, number>();
  for (const r of rows) scores.set(r.doc_id, (scores.get(r.doc_id) ?? 0) + weight.get(r.entity_id)!);
  return [...scores.entries()]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, depth)
    .map(([key, score]) => ({ key, score }));
}
