import { porterStem } from './porter-stemmer.js';
import { tokenize } from './query-text.js';

/**
 * The keyword terms of one document, as FTS5's `porter unicode61 remove_diacritics 2` tokenizer makes
 * them (`tokenize`, then the FTS5 Porter stemmer), counted per column: what BM25 needs of a document,
 * on either profile (the embedded keyword postings, the Qdrant sparse vectors).
 *
 * `length` is the document's token count over all columns (stop-words included, as FTS5 counts them)
 * and a stem's `counts` packs its occurrences in the title (bits 0–9), content (10–20) and tags
 * (21–31), each capped at its field's maximum (1,023 / 2,047 / 2,047: past a few occurrences BM25 is
 * saturated anyway).
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
