/**
 * Everything consolidation learns from a queued write's text alone, before it looks at any other
 * memory: injection screening, sensitivity, the dedupe fingerprint and tokens, subject keys and
 * contradiction cues, quality, graph entities and the offline contradiction detector's facts.
 *
 * It is pure (text in, plain data out, no store) so it can run on another thread while the store
 * thread plans and commits the previous batch (see `ports/write-analyzer.ts`). Its result crosses a
 * thread boundary by structured clone: plain objects, arrays, Sets and numbers only.
 */
import { extractFacts, type Fact } from '../consolidation/contradiction.js';
import { screenMemoryForInjection, type MemoryScreenResult } from '../consolidation/memory-screen.js';
import { qualityScore } from '../consolidation/quality.js';
import { classifySensitivity, type SensitivityLevel, type SensitivityResult } from '../consolidation/sensitivity.js';
import { contentFingerprint, similarityTokens } from '../consolidation/similarity.js';
import { extractEntities } from '../../text/entities.js';
import { mentionedNames } from '../../text/name-mentions.js';
import type { JsonPrimitive } from '../../ports/memories.js';
import type { ExtractedEntity } from '../../ports/search-index.js';
import { quickQualityScore } from './quick-quality.js';
import { contentCues, subjectKeys, type ContentCues } from './subjects.js';

/** Serializable (it is the configuration of an analysis thread). */
export interface WriteAnalysisOptions {
  /** `fast` surface cues or the slower `nlp` compromise parse (figures: docs/performance.md#fast-quality-estimate). */
  quality: 'fast' | 'nlp';
  /** Extract graph entities (the hybrid+graph channel). */
  entities: boolean;
  /**
   * Extract the offline contradiction detector's facts (an NLP parse, docs/performance.md#contradiction-facts-ahead-of-need)
   * for texts that state a single-valued attribute or negate, the ones most likely compared. Off when an LLM
   * detector decides instead. Texts without those cues get their facts on demand, if ever compared.
   */
  offlineFacts: boolean;
}

export interface WriteAnalysisInput {
  title: string;
  content: string;
  tags: readonly string[];
  /** Screened with the rest: search hands metadata and the agent id to agents too. */
  metadata: Readonly<Record<string, JsonPrimitive>>;
  agentId: string | null;
  writerSensitivity: SensitivityLevel | null;
}

export interface WriteAnalysis {
  injection: MemoryScreenResult;
  sensitivity: SensitivityResult;
  fingerprint: string;
  subjects: string[];
  cues: ContentCues;
  /** `similarityTokens` of the content, for the near-duplicate pre-filter. */
  tokens: string[];
  /** Quality in [0, 1] of the memory as it would be indexed. */
  quality: number;
  /** Entities of `title\ncontent` (empty when the options leave entities out). */
  entities: ExtractedEntity[];
  /** Facts of the content; null when not extracted here (see `WriteAnalysisOptions.offlineFacts`). */
  facts: Fact[] | null;
  /** Normalised names `title\ncontent` mentions (`mentionedNames`): the knowledge objects to refresh once the write commits. */
  mentions: string[];
}

/** The text classified and embedded: the title belongs to what an agent will read back. */
export function screenedText(memory: { title: string; content: string }): string {
  return memory.title ? `${memory.title}\n${memory.content}` : memory.content;
}

/** The text graph entities are extracted from. */
export function entityText(memory: { title: string; content: string }): string {
  return `${memory.title}\n${memory.content}`;
}

export function createWriteAnalysis(options: WriteAnalysisOptions): (input: WriteAnalysisInput) => WriteAnalysis {
  const scoreQuality = options.quality === 'nlp' ? qualityScore : quickQualityScore;
  return (input) => {
    const text = screenedText(input);
    const cues = contentCues(input.content);
    const likelyCompared = cues.negation || cues.single.size > 0;
    const entities = options.entities ? extractEntities(entityText(input)) : [];
    return {
      injection: screenMemoryForInjection(input),
      sensitivity: classifySensitivity(text, input.writerSensitivity ?? undefined),
      fingerprint: contentFingerprint(input.content),
      subjects: subjectKeys(text),
      cues,
      tokens: similarityTokens(input.content),
      quality: scoreQuality({ content: input.content, title: input.title, tags: input.tags }),
      entities,
      facts: options.offlineFacts && likelyCompared ? extractFacts(input.content) : null,
      mentions: mentionedNames(entityText(input), entities),
    };
  };
}
