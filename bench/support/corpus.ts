/**
 * The synthetic search corpus shared by the search benchmarks (`bench/search-speed.ts`, in process;
 * `bench/search-http.ts`, over HTTP): deterministic memories of 12–31 words drawn Zipf-like from a
 * 20,000-word syllable vocabulary, 2–5 synthetic entities each (the first a person), vectors from
 * whatever vectoriser the caller gives, one minute apart, every tenth in namespace `notes`.
 *
 * Everything comes from seeded mulberry32 streams, so the same seed gives the same tenant on any machine.
 */
import type { ExtractedEntity, IndexedMemory } from '../../server/ports/search-index.js';

/** Small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ren',
  'tas',
  'vo',
  'dri',
  'pel',
  'sun',
  'gar',
  'fe',
  'nox',
  'ul',
  'bri',
  'zen',
  'to',
  'ca',
  'mar',
  'li',
  'des',
];
const COMMON = ['meeting', 'project', 'garden', 'travel', 'budget', 'doctor', 'family', 'recipe', 'music', 'report', 'school', 'market'];

function vocabulary(size: number): string[] {
  const r = rng(7);
  const words = new Set<string>(COMMON);
  while (words.size < size) {
    const n = 2 + Math.floor(r() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)];
    words.add(w);
  }
  return [...words];
}

/** Zipf-like pick: low ranks are much more frequent. */
export function zipf(r: () => number, n: number): number {
  return Math.min(n - 1, Math.floor(Math.exp(r() * Math.log(n + 1)) - 1));
}

/** The corpus vocabulary, most frequent first. */
export const VOCAB = vocabulary(20_000);

/** Anything that turns one text into a vector synchronously. */
export interface SyncVectorizer {
  embedOne(text: string): Float32Array;
}

/** The memories of one synthetic tenant; `memoryId` is `m<seed>-<i>`. */
export function* generateTenant(tenantSeed: number, size: number, vectorizer: SyncVectorizer): Generator<IndexedMemory> {
  const r = rng(tenantSeed);
  const base = Date.UTC(2025, 0, 1);
  for (let i = 0; i < size; i++) {
    const len = 12 + Math.floor(r() * 20);
    const words: string[] = [];
    for (let j = 0; j < len; j++) words.push(VOCAB[zipf(r, VOCAB.length)]!);
    const content = words.join(' ');
    const entities: ExtractedEntity[] = [];
    const ne = 2 + Math.floor(r() * 4);
    for (let j = 0; j < ne; j++) {
      const key = VOCAB[zipf(r, 4000)]!;
      entities.push({ key, name: key, type: j === 0 ? 'person' : 'thing' });
    }
    yield {
      memoryId: `m${tenantSeed}-${i}`,
      namespace: i % 10 === 0 ? 'notes' : 'default',
      agentId: null,
      title: '',
      content,
      tags: [],
      status: 'active',
      injectionFlagged: false,
      quality: 1,
      createdAt: new Date(base + i * 60_000).toISOString(),
      vector: vectorizer.embedOne(content),
      entities,
    };
  }
}

/** `n` short queries of 2–5 words from the 4,000 most frequent words of the vocabulary. */
export function queriesFor(n: number, seed = 99): string[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => {
    const len = 2 + Math.floor(r() * 4);
    const words: string[] = [];
    for (let j = 0; j < len; j++) words.push(VOCAB[Math.floor(r() * 4000)]!);
    return words.join(' ');
  });
}
