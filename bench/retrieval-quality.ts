/**
 * Retrieval quality of the embedded search index on a LoCoMo-format dataset, in process (no HTTP).
 *
 *   npx tsx bench/retrieval-quality.ts --dataset /work/shared/datasets/locomo-dev/locomo-dev.json
 *
 * Every dialogue turn becomes one memory exactly as the HTTP benchmark writes it (content from
 * `harness/turn-content.ts`: `[session date] speaker: text`, plus a shared image's caption; no title;
 * the vector embeds the content and the entities come from it, as consolidation does), with created_at
 * the session time plus the turn's position. By default the conversations share one tenant, one
 * namespace each, as the HTTP benchmark writes them; every question of categories 1-4 is searched in its
 * conversation's namespace and scored against its evidence turns: recall@10, MRR and nDCG@10 per mode,
 * with plain BM25 over the turns as the baseline.
 *
 * Options:
 *   --embedder local|use-lite|hash   query and memory embeddings (default local: USE-lite distilled to
 *                           static token vectors, with lexical features; use-lite: the full encoder)
 *   --sweep                 also score every combination of fusion method (weighted min-max / z-score),
 *                           channel weights and episodic-context weight, and, for the default local
 *                           model, its lexical share with the vector-only context weight, with
 *                           leave-one-conversation-out selection, to choose defaults (~10 minutes)
 *   --layout namespaces|tenants  namespaces (default): one tenant, a namespace per conversation, so BM25's
 *                           and the graph's statistics span every conversation, as over HTTP; tenants: a
 *                           tenant per conversation (statistics of that conversation alone)
 *   --json FILE             write the results as JSON
 *   --no-cache              do not reuse embeddings cached under the OS temp directory
 *
 * The dataset is licensed CC BY-NC and must not be committed; nothing derived from it is written inside
 * the repository unless --json points there (the numbers only).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openInMemoryDatabase } from '../adapters/embedded/database.js';
import { EmbeddedSearchIndex, type ChannelName, type SearchTuning } from '../adapters/embedded/search-index.js';
import { DEFAULT_CONTEXT, DEFAULT_FUSION, type FusionConfig } from '../server/services/search/tuning.js';
import { createEmbedder, LexicalAugmentedEmbedder } from '../adapters/embeddings/index.js';
import type { Embedder } from '../server/ports/embedder.js';
import type { IndexedMemory, SearchFilters, SearchMode, SearchQuery, SearchResult } from '../server/ports/search-index.js';
import { extractEntities } from '../server/text/entities.js';
import { loadDataset, type Conversation, type Turn } from './harness/dataset.js';
import { turnContent } from './harness/turn-content.js';
import { ndcgAtK, recallAtK, reciprocalRank } from './harness/metrics.js';
import { benchArgs } from './support/args.js';

const USAGE = `Usage: npm run bench:retrieval-quality -- --dataset FILE [options]

Retrieval quality of the embedded search index on a LoCoMo-format dataset, in process: recall@10, MRR
and nDCG@10 per mode, with plain BM25 as the baseline.

Options:
  --dataset FILE     a LoCoMo-format JSON file (required)
  --embedder local|use-lite|hash  query and memory embeddings (default local)
  --sweep            also score fusion and weight combinations to choose defaults (~10 minutes)
  --layout namespaces|tenants  a namespace per conversation (default) or a tenant per conversation
  --no-cache         do not reuse embeddings cached under the OS temp directory
  --json FILE        write the results as JSON
  --help             this text
`;

const K = 10;

interface Scores {
  recall: number;
  mrr: number;
  ndcg: number;
  n: number;
}

type Runner = (conv: Conversation, question: string, vector: Float32Array) => Promise<string[]>;

/**
 * Where a conversation's turns are written and searched. The layouts score differently because the
 * index's statistics are per tenant: over HTTP every conversation is in the benchmark's one tenant.
 */
interface Placement {
  tenantOf(conv: Conversation): string;
  namespaceOf(conv: Conversation): string;
  /** Memory ids are unique per tenant; turn ids (`D1:3`) repeat across conversations. */
  memoryIdOf(conv: Conversation, turnId: string): string;
  turnIdOf(memoryId: string): string;
  filters(conv: Conversation): SearchFilters;
}

function placementFor(layout: string): Placement {
  if (layout === 'tenants') {
    return {
      tenantOf: (conv) => conv.sampleId,
      namespaceOf: () => 'default',
      memoryIdOf: (_conv, turnId) => turnId,
      turnIdOf: (memoryId) => memoryId,
      filters: () => ({ namespaces: null }),
    };
  }
  if (layout !== 'namespaces') throw new Error(`--layout must be namespaces or tenants, not "${layout}"`);
  return {
    tenantOf: () => 'locomo',
    namespaceOf: (conv) => conv.sampleId,
    memoryIdOf: (conv, turnId) => `${conv.sampleId}/${turnId}`,
    turnIdOf: (memoryId) => memoryId.slice(memoryId.indexOf('/') + 1),
    filters: (conv) => ({ namespaces: [conv.sampleId] }),
  };
}

/** A question of `conv` as a top-K search where `placement` put the conversation. */
function placedQuery(placement: Placement, conv: Conversation, text: string, vector: Float32Array, mode: SearchMode): SearchQuery {
  return { text, vector, mode, limit: K, filters: placement.filters(conv) };
}

/** The turn ids of a result, best first. */
function turnIdsOf(placement: Placement, result: SearchResult): string[] {
  return result.hits.map((h) => placement.turnIdOf(h.memoryId));
}

function turnCreatedAt(t: Turn, index: number): string {
  const base = t.sessionTimestamp ? Date.parse(t.sessionTimestamp) : Date.UTC(2000, 0, 1) + t.session * 86_400_000;
  return new Date(base + index * 1000).toISOString();
}

/** Embeddings cached on disk by content hash (under the OS temp dir, never in the repository). */
async function embedCached(embedder: Embedder, texts: string[], useCache: boolean): Promise<Float32Array[]> {
  const key = createHash('sha256').update(embedder.model).update('\u0000').update(texts.join('\u0001')).digest('hex').slice(0, 24);
  const dir = path.join(tmpdir(), 'tenant-memory-bench-cache');
  const file = path.join(dir, `${key}.f32`);
  const dim = embedder.dimension;
  if (useCache && existsSync(file)) {
    const buf = readFileSync(file);
    if (buf.byteLength === texts.length * dim * 4) {
      const all = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
      return texts.map((_, i) => all.slice(i * dim, (i + 1) * dim));
    }
  }
  const out = await embedder.embed(texts);
  if (useCache) {
    mkdirSync(dir, { recursive: true });
    const all = new Float32Array(texts.length * dim);
    out.forEach((v, i) => all.set(v, i * dim));
    writeFileSync(file, Buffer.from(all.buffer));
  }
  return out;
}

/** Writes every turn of every conversation into `index`, where `placement` puts it. */
async function ingest(
  index: EmbeddedSearchIndex,
  conversations: Conversation[],
  embed: (texts: string[]) => Promise<Float32Array[]>,
  placement: Placement,
): Promise<{ turns: number; embedMs: number; entityMs: number }> {
  let turns = 0;
  let embedMs = 0;
  let entityMs = 0;
  for (const conv of conversations) {
    const contents = conv.turns.map(turnContent);
    const te = performance.now();
    const vectors = await embed(contents);
    embedMs += performance.now() - te;
    const tx = performance.now();
    const docs: IndexedMemory[] = conv.turns.map((t, i) => ({
      memoryId: placement.memoryIdOf(conv, t.turnId),
      namespace: placement.namespaceOf(conv),
      agentId: null,
      title: '',
      content: contents[i]!,
      tags: [],
      status: 'active',
      injectionFlagged: false,
      quality: 1,
      createdAt: turnCreatedAt(t, i),
      vector: vectors[i]!,
      entities: extractEntities(`\n${contents[i]!}`),
    }));
    entityMs += performance.now() - tx;
    await index.upsertMany(placement.tenantOf(conv), docs);
    turns += docs.length;
  }
  return { turns, embedMs, entityMs };
}

function mean(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

function fmt(s: Scores): string {
  return `${s.recall.toFixed(3)}      ${s.mrr.toFixed(3)}   ${s.ndcg.toFixed(3)}`;
}

async function main(): Promise<void> {
  const values = benchArgs(USAGE, {
    dataset: { type: 'string' },
    embedder: { type: 'string', default: 'local' },
    sweep: { type: 'boolean', default: false },
    json: { type: 'string' },
    layout: { type: 'string', default: 'namespaces' },
    'no-cache': { type: 'boolean', default: false },
  });
  if (!values.dataset) throw new Error('--dataset FILE is required (a LoCoMo-format JSON file)');
  const provider = values.embedder === 'hash' || values.embedder === 'use-lite' ? values.embedder : 'local';
  const useCache = !values['no-cache'];
  const placement = placementFor(values.layout);
  const dataset = await loadDataset(values.dataset);
  const embedder = createEmbedder({ provider, dimension: 512 });
  await embedder.init();

  const db = openInMemoryDatabase();
  const index = new EmbeddedSearchIndex(db, { model: embedder.model, dimension: embedder.dimension });

  const t0 = performance.now();
  const { turns, embedMs, entityMs } = await ingest(
    index,
    dataset.conversations,
    (texts) => embedCached(embedder, texts, useCache),
    placement,
  );
  const ingestMs = performance.now() - t0;

  // Plain BM25: FTS5 with its default tokenizer (unicode61: no stemming), every query token OR-ed,
  // no stop-word removal, the same memory text. This is the reference the modes must beat.
  const plainDb = openInMemoryDatabase();
  plainDb.exec('CREATE VIRTUAL TABLE plain USING fts5(conv UNINDEXED, turn UNINDEXED, content)');
  const insertPlain = plainDb.prepare('INSERT INTO plain (conv, turn, content) VALUES (?, ?, ?)');
  plainDb.transaction(() => {
    for (const conv of dataset.conversations) for (const t of conv.turns) insertPlain.run([conv.sampleId, t.turnId, turnContent(t)]);
  })();
  const plainSearch = plainDb.prepare('SELECT turn FROM plain WHERE plain MATCH ? AND conv = ? ORDER BY bm25(plain) LIMIT ?');
  const plainBm25 = (conv: Conversation, text: string): string[] => {
    const tokens = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
    if (tokens.length === 0) return [];
    const match = tokens.map((t) => `"${t}"`).join(' OR ');
    return (plainSearch.all([match, conv.sampleId, K]) as { turn: string }[]).map((r) => r.turn);
  };

  const questions = dataset.conversations.flatMap((c) => c.questions.map((q) => ({ conv: c, q })));
  const qVectors = await embedCached(
    embedder,
    questions.map((x) => x.q.question),
    useCache,
  );

  const modeRunner =
    (mode: SearchMode): Runner =>
    async (conv, text, vector) =>
      turnIdsOf(placement, await index.search(placement.tenantOf(conv), placedQuery(placement, conv, text, vector, mode)));
  const channelRunner =
    (channel: ChannelName, mode: SearchMode): Runner =>
    async (conv, text, vector) =>
      turnIdsOf(placement, await index.channelSearch(placement.tenantOf(conv), channel, placedQuery(placement, conv, text, vector, mode)));
  const runners: Record<string, Runner> = {
    'plain BM25 (baseline)': async (conv, text) => plainBm25(conv, text),
    'keyword channel': channelRunner('keyword', 'hybrid'),
    'vector-only': modeRunner('vector-only'),
    hybrid: modeRunner('hybrid'),
    'hybrid+graph': modeRunner('hybrid+graph'),
    'graph channel alone': channelRunner('graph', 'hybrid+graph'),
  };

  /** Per-question scores of one runner, grouped by conversation. */
  const evaluate = async (run: Runner) => {
    const per = new Map<string, { recall: number[]; rr: number[]; ndcg: number[] }>();
    for (let i = 0; i < questions.length; i++) {
      const { conv, q } = questions[i]!;
      const ranked = await run(conv, q.question, qVectors[i]!);
      const relevant = new Set(q.evidence);
      const p = per.get(conv.sampleId) ?? { recall: [], rr: [], ndcg: [] };
      p.recall.push(recallAtK(ranked, relevant, K));
      p.rr.push(reciprocalRank(ranked, relevant, K));
      p.ndcg.push(ndcgAtK(ranked, relevant, K));
      per.set(conv.sampleId, p);
    }
    return per;
  };
  const summarise = (per: Map<string, { recall: number[]; rr: number[]; ndcg: number[] }>, only?: Set<string>): Scores => {
    const r: number[] = [];
    const m: number[] = [];
    const n: number[] = [];
    for (const [id, p] of per) {
      if (only && !only.has(id)) continue;
      r.push(...p.recall);
      m.push(...p.rr);
      n.push(...p.ndcg);
    }
    return { recall: mean(r), mrr: mean(m), ndcg: mean(n), n: r.length };
  };

  console.log(`dataset: ${dataset.source}`);
  console.log(
    `conversations ${dataset.conversations.length} (layout ${values.layout}), turns ${turns}, questions (categories 1-4) ${questions.length}; ` +
      `embedder ${embedder.model}; ingest ${(ingestMs / 1000).toFixed(1)} s (embedding ${(embedMs / 1000).toFixed(1)} s, entities ${(entityMs / 1000).toFixed(1)} s)`,
  );
  console.log('');
  console.log('mode                   recall@10  MRR     nDCG@10');
  const results: Record<string, Scores> = {};
  const perConversation: Record<string, Record<string, Scores>> = {};
  for (const [name, run] of Object.entries(runners)) {
    const per = await evaluate(run);
    const s = summarise(per);
    results[name] = s;
    perConversation[name] = Object.fromEntries([...per.keys()].map((id) => [id, summarise(per, new Set([id]))]));
    console.log(`${name.padEnd(22)} ${fmt(s)}`);
  }
  const base = results['plain BM25 (baseline)']!;
  console.log('');
  for (const mode of ['vector-only', 'hybrid', 'hybrid+graph']) {
    const s = results[mode]!;
    const ok = s.recall > base.recall && s.ndcg > base.ndcg;
    console.log(
      `${mode.padEnd(13)} vs BM25: recall@10 ${(s.recall - base.recall >= 0 ? '+' : '') + (s.recall - base.recall).toFixed(3)}, ` +
        `nDCG@10 ${(s.ndcg - base.ndcg >= 0 ? '+' : '') + (s.ndcg - base.ndcg).toFixed(3)} ${ok ? 'beats BM25' : 'DOES NOT beat BM25'}`,
    );
  }
  console.log('\nper conversation (recall@10 / nDCG@10):');
  for (const id of dataset.conversations.map((c) => c.sampleId)) {
    console.log(
      `  ${id.padEnd(10)} ` +
        Object.keys(runners)
          .map(
            (name) =>
              `${name.split(' ').slice(0, 2).join(' ')} ${perConversation[name]![id]!.recall.toFixed(2)}/${perConversation[name]![id]!.ndcg.toFixed(2)}`,
          )
          .join('  '),
    );
  }

  let sweep: unknown = undefined;
  if (values.sweep) {
    // The default local model's lexical share is swept too (a new index per share; base vectors cached).
    const lexical =
      embedder instanceof LexicalAugmentedEmbedder
        ? { embedder, conversations: dataset.conversations, embed: (e: Embedder, texts: string[]) => embedCached(e, texts, useCache) }
        : undefined;
    sweep = await runSweep(index, placement, evaluate, summarise, lexical);
  }

  if (values.json) {
    mkdirSync(path.dirname(values.json), { recursive: true });
    writeFileSync(
      values.json,
      JSON.stringify(
        { embedder: embedder.model, layout: values.layout, k: K, questions: questions.length, turns, results, perConversation, sweep },
        null,
        2,
      ),
    );
    console.log(`\nwrote ${values.json}`);
  }
}

/**
 * Scores fusion variants and picks one by leave-one-conversation-out: for each held-out conversation the
 * variant best on the other conversations is scored on it. The held-out mean estimates how the selection
 * procedure does on unseen conversations; the variant chosen on all conversations is what to configure.
 */
async function runSweep(
  index: EmbeddedSearchIndex,
  placement: Placement,
  evaluate: (run: Runner) => Promise<Map<string, { recall: number[]; rr: number[]; ndcg: number[] }>>,
  summarise: (per: Map<string, { recall: number[]; rr: number[]; ndcg: number[] }>, only?: Set<string>) => Scores,
  lexical?: {
    embedder: LexicalAugmentedEmbedder;
    conversations: Conversation[];
    embed: (e: Embedder, texts: string[]) => Promise<Float32Array[]>;
  },
): Promise<unknown> {
  // RRF (k = 10 and 60) scored below both weighted methods at every setting of an earlier grid, so the
  // runs go to the weights instead.
  const methods: [string, FusionConfig['method']][] = [
    ['minmax', { kind: 'weighted', normalization: 'minmax' }],
    ['zscore', { kind: 'weighted', normalization: 'zscore' }],
  ];
  const ctx = (mode: SearchMode, w: number) => ({ ...DEFAULT_CONTEXT, weight: { ...DEFAULT_CONTEXT.weight, [mode]: w } });
  const objective = (s: Scores) => s.recall + s.ndcg;
  type Per = Map<string, { recall: number[]; rr: number[]; ndcg: number[] }>;
  const scored: { name: string; mode: SearchMode | 'lexical share'; per: Per }[] = [];
  let done = 0;
  const run = async (
    name: string,
    mode: SearchMode,
    tuning: SearchTuning,
    on: { index: EmbeddedSearchIndex; vectorOf?: (text: string) => Float32Array; group?: 'lexical share' } = { index },
  ): Promise<Scores> => {
    process.stderr.write(`sweep ${++done}: ${name}\n`);
    const per = await evaluate(async (conv, text, vector) => {
      const query = placedQuery(placement, conv, text, on.vectorOf?.(text) ?? vector, mode);
      return turnIdsOf(placement, await on.index.search(placement.tenantOf(conv), query, tuning));
    });
    scored.push({ name, mode: on.group ?? mode, per });
    return summarise(per);
  };
  for (const w of [0, 0.15, 0.3, 0.5]) await run(`vector ctx=${w}`, 'vector-only', { context: ctx('vector-only', w) });
  if (lexical) {
    // The share of the lexical part and the context weight of vector-only, chosen together: one index
    // per share (the base vectors are embedded once and cached; the lexical part costs microseconds).
    const { embedder, conversations } = lexical;
    for (const share of [0.5, 0.6, 0.7, 0.8]) {
      const e = new LexicalAugmentedEmbedder(embedder.base, { lexicalShare: share, lexicalDimension: embedder.lexicalDimension });
      const embed = async (texts: string[]) => (await lexical.embed(embedder.base, texts)).map((v, i) => e.combine(v, texts[i]!));
      const shareIndex = new EmbeddedSearchIndex(openInMemoryDatabase(), { model: e.model, dimension: e.dimension });
      await ingest(shareIndex, conversations, embed, placement);
      const questionTexts = [...new Set(conversations.flatMap((c) => c.questions.map((q) => q.question)))];
      const qv = new Map((await embed(questionTexts)).map((v, i) => [questionTexts[i]!, v]));
      for (const w of [0, 0.15, 0.3]) {
        await run(
          `vector share=${share} ctx=${w}`,
          'vector-only',
          { context: ctx('vector-only', w) },
          {
            index: shareIndex,
            vectorOf: (text) => qv.get(text)!,
            group: 'lexical share',
          },
        );
      }
      await shareIndex.close();
    }
  }
  // Every combination of method, weights and context, not a greedy path through them: the method best
  // without episodic context need not be the best with it (in the namespaces layout it was not).
  for (const [name, method] of methods) {
    for (const c of [0, 0.15, 0.3, 0.45, 0.6, 0.8]) {
      for (const dense of [0.15, 0.3, 0.5]) {
        await run(`hybrid ${name} dense=${dense} ctx=${c}`, 'hybrid', {
          fusion: { method, weights: { ...DEFAULT_FUSION.weights, hybrid: { keyword: 1, dense } } },
          context: ctx('hybrid', c),
        });
        for (const graph of [0.15, 0.25, 0.5]) {
          await run(`graph ${name} dense=${dense} graph=${graph} ctx=${c}`, 'hybrid+graph', {
            fusion: { method, weights: { ...DEFAULT_FUSION.weights, 'hybrid+graph': { keyword: 1, dense, graph } } },
            context: ctx('hybrid+graph', c),
          });
        }
      }
    }
  }
  const convIds = [...scored[0]!.per.keys()];
  const out: Record<string, unknown> = {};
  for (const mode of ['vector-only', ...(lexical ? ['lexical share' as const] : []), 'hybrid', 'hybrid+graph'] as const) {
    const mine = scored.filter((s) => s.mode === mode);
    const ranked = mine.map((s) => ({ name: s.name, all: summarise(s.per) })).sort((a, b) => objective(b.all) - objective(a.all));
    console.log(`\nsweep ${mode}: top variants on all conversations (recall@10 / MRR / nDCG@10)`);
    for (const r of ranked.slice(0, 8)) console.log(`  ${r.name.padEnd(52)} ${fmt(r.all)}`);
    const heldOut: Scores[] = [];
    for (const held of convIds) {
      const train = new Set(convIds.filter((c) => c !== held));
      const best = mine.map((s) => ({ s, score: objective(summarise(s.per, train)) })).sort((a, b) => b.score - a.score)[0]!.s;
      const h = summarise(best.per, new Set([held]));
      heldOut.push(h);
      console.log(`  held out ${held.padEnd(8)}: chose ${best.name.padEnd(52)} -> ${fmt(h)}`);
    }
    const total = heldOut.reduce((a, h) => a + h.n, 0);
    const cv = {
      recall: heldOut.reduce((a, h) => a + h.recall * h.n, 0) / total,
      mrr: heldOut.reduce((a, h) => a + h.mrr * h.n, 0) / total,
      ndcg: heldOut.reduce((a, h) => a + h.ndcg * h.n, 0) / total,
      n: total,
    };
    console.log(`  leave-one-conversation-out estimate: ${fmt(cv)}`);
    out[mode] = { top: ranked.slice(0, 8), crossValidated: cv };
  }
  return out;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
