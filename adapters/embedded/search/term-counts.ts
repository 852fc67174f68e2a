import { porterStem } from '../../../server/services/retrieval/porter-stemmer.js';
import { tokenize } from './query-text.js';

/**
 * The keyword terms of one document, as FTS5's `porter unicode61 remove_diacritics 2` tokenizer makes
 * them (`tokenize`, then the FTS5 Porter stemmer), counted per column: what BM25 needs of a document.
 * Written beside the document's index row (`search_docs.terms`) so that a process can hold a tenant's
 * keyword index in memory without re-reading its text (the FTS5 table is contentless).
 *
 * Stored form: a JSON array `[length, stem, counts, stem, counts, ...]`, where `length` is the
 * document's token count over all columns (stop-words included, as FTS5 counts them) and `counts`
 * packs the stem's occurrences in the title (bits 0–9), content (10–20) and tags (21–31), each capped
 * at its field's maximum (1,023 / 2,047 / 2,047: past a few occurrences BM25 is saturated anyway).
 */

export interface TermCounts {
  /** Tokens over all columns. */
  length: number;
  /** Stem → packed per-column counts (see `packCounts`). */
  counts: Map<string, number>;
}

const TITLE_MAX = 0x3ff;
const FIELD_MAX = 0x7ff;

export function packCounts(title: number, content: number, tags: number): number {
  return Math.min(title, TITLE_MAX) + Math.min(content, FIELD_MAX) * 0x400 + Math.min(tags, FIELD_MAX) * 0x200000;
}

/** The column-weighted frequency of packed counts: title × wTitle + content × wContent + tags × wTags. */
export function weightedFrequency(packed: number, wTitle: number, wContent: number, wTags: number): number {
  return (packed & TITLE_MAX) * wTitle + ((packed >>> 10) & FIELD_MAX) * wContent + ((packed >>> 21) & FIELD_MAX) * wTags;
}

export function countTerms(doc: { title: string; content: string; tags: readonly string[] }): TermCounts {
  const perColumn = new Map<string, [number, number, number]>();
  let length = 0;
  const columns = [doc.title, doc.content, doc.tags.join(' ')];
  for (let c = 0; c < 3; c++) {
    for (const token of tokenize(columns[c]!)) {
      length++;
      const stem = porterStem(token);
      let n = perColumn.get(stem);
      if (!n) perColumn.set(stem, (n = [0, 0, 0]));
      n[c]!++;
    }
  }
  const counts = new Map<string, number>();
  for (const [stem, [title, content, tags]] of perColumn) counts.set(stem, packCounts(title, content, tags));
  return { length, counts };
}

export function encodeTermCounts(t: TermCounts): string {
  const out: (string | number)[] = [t.length];
  for (const [stem, packed] of t.counts) out.push(stem, packed);
  return JSON.stringify(out);
}

/**
 * Reads the stored form; null when it is not one (a corrupt or foreign value is treated like a missing
 * one: the keyword channel then falls back to the FTS5 table for the tenant).
 */
export function decodeTermCounts(text: string): TermCounts | null {
  const parsed = parseTermCounts(text);
  if (!parsed) return null;
  const counts = new Map<string, number>();
  for (let i = 1; i < parsed.length; i += 2) counts.set(parsed[i] as string, parsed[i + 1] as number);
  return { length: parsed[0] as number, counts };
}

/** The stored form as its checked array `[length, stem, counts, ...]`, or null when it is not one. */
export function parseTermCounts(text: string): (string | number)[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length % 2 !== 1 || !isCount(parsed[0])) return null;
  for (let i = 1; i < parsed.length; i += 2) {
    if (typeof parsed[i] !== 'string' || !isCount(parsed[i + 1])) return null;
  }
  return parsed as (string | number)[];
}

function isCount(x: unknown): x is number {
  return typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 0xffffffff;
}
