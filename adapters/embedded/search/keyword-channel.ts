import type { KeywordConfig } from '../../../server/services/search/tuning.js';
import { queryStems } from '../../../server/text/query-text.js';
import type { EmbeddedDatabase } from '../database.js';
import { preparedStatement } from '../statement-cache.js';
import type { TranslatedFilter } from './filter-translation.js';
import { buildFtsQuery } from './fts-query.js';
import type { ChannelHit } from '../../../server/services/search/fusion.js';
import { ftsTable } from './rows.js';
import type { TenantCache } from './tenant-cache.js';
import { TopK } from './top-k.js';

/** BM25 over the tenant's documents: from the cache's postings when complete (or unless `fts5`), else the FTS5 table. */
export function keywordChannel(
  db: EmbeddedDatabase,
  c: TenantCache,
  text: string,
  depth: number,
  f: TranslatedFilter,
  k: KeywordConfig,
  fts5 = false,
): ChannelHit<number>[] {
  if (!fts5 && c.keywordComplete) return keywordInMemory(c, text, depth, f, k);
  return keywordFts5(db, c, text, depth, f, k);
}

/** The same BM25 as FTS5's bm25() with the same weights, over the cache's postings; filtered exactly. */
function keywordInMemory(c: TenantCache, text: string, depth: number, f: TranslatedFilter, k: KeywordConfig): ChannelHit<number>[] {
  const scores = c.keywordScores(queryStems(text), { title: k.titleWeight, content: k.contentWeight, tags: k.tagsWeight });
  // At 100k memories a query matches thousands: the filter runs only for those that could still rank.
  const top = new TopK(depth);
  for (const [key, score] of scores) {
    if (score < top.minScore || !c.acceptsDoc(key, f.filter)) continue;
    top.push(key, score);
  }
  return top.sorted().map(([key, score]) => ({ key, score }));
}

function keywordFts5(
  db: EmbeddedDatabase,
  c: TenantCache,
  text: string,
  depth: number,
  f: TranslatedFilter,
  k: KeywordConfig,
): ChannelHit<number>[] {
  const table = ftsTable(db, c.tenantId, false);
  if (!table) return [];
  const match = buildFtsQuery(text);
  if (!match) return [];
  const bm25 = `bm25(${table}, ${num(k.titleWeight)}, ${num(k.contentWeight)}, ${num(k.tagsWeight)})`;
  // The FTS table alone, filtered here against the cache: joining search_docs for the filter cost a
  // row lookup per match. A few more rows than needed are read, since the filter may drop some; when
  // it drops more than that, the query runs again with the filter in SQL.
  const fetch = depth + (depth >> 2) + 8;
  const rows = preparedStatement(
    db,
    `SELECT rowid AS doc_id, ${bm25} AS rank FROM ${table} WHERE ${table} MATCH ? ORDER BY rank LIMIT ?`,
  ).all([match, fetch]) as { doc_id: number; rank: number }[];
  let kept = rows.filter((r) => c.acceptsDoc(r.doc_id, f.filter));
  if (kept.length < depth && rows.length === fetch) {
    kept = (
      preparedStatement(
        db,
        `SELECT d.doc_id AS doc_id, ${bm25} AS rank
         FROM ${table} CROSS JOIN search_docs d ON d.doc_id = ${table}.rowid
         WHERE ${table} MATCH ? AND ${f.sql}
         ORDER BY rank LIMIT ?`,
      ).all([match, ...f.params, depth]) as { doc_id: number; rank: number }[]
    ).filter((r) => c.acceptsDoc(r.doc_id, f.filter));
  }
  // FTS5's bm25() is lower-is-better; negate so every channel is higher-is-better.
  return kept.slice(0, depth).map((r) => ({ key: r.doc_id, score: -r.rank }));
}

function num(x: number): string {
  if (!Number.isFinite(x)) throw new RangeError(`invalid weight ${x}`);
  return x.toFixed(6);
}
