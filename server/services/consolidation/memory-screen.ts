/**
 * Injection screening of a whole memory: every text a search result hands an agent (title, content,
 * each tag, metadata keys and string values, agent id) is screened, so an order hidden in a tag or a
 * metadata value flags the memory exactly as one in the content does.
 *
 * The parts are screened joined by line breaks, as an agent reads them together (the content last, so
 * that the length cap of one text never cuts the short fields). A clean memory costs that one screen.
 * When it finds anything, each part is screened alone to say where (`field`, and for tags and metadata
 * the evidence names the tag or key first); what only the joined reading finds is `across-fields`.
 * The score combines the strongest finding per pattern id over all of them, as for one text.
 */
import type { JsonPrimitive, ScreenedField } from '../../ports/memories.js';
import {
  INJECTION_FLAG_THRESHOLD,
  INJECTION_RULES,
  MAX_SCREEN_CHARS,
  combineWeights,
  screenForInjection,
  type InjectionPattern,
  type InjectionPatternId,
} from './injection-screen.js';

export interface ScreenableMemory {
  title: string;
  content: string;
  tags: readonly string[];
  metadata: Readonly<Record<string, JsonPrimitive>>;
  agentId: string | null;
}

export interface MemoryInjectionPattern extends InjectionPattern {
  field: ScreenedField;
}

export interface MemoryScreenResult {
  flagged: boolean;
  score: number;
  /** One entry per distinct id, in catalogue order, from the part where it weighed most. */
  patterns: MemoryInjectionPattern[];
}

interface Part {
  field: Exclude<ScreenedField, 'across-fields'>;
  /** Names the tag or metadata entry in the evidence. */
  label: string;
  text: string;
}

const LABEL_KEY_CHARS = 30;

function shortKey(key: string): string {
  return key.length > LABEL_KEY_CHARS ? `${key.slice(0, LABEL_KEY_CHARS - 1)}…` : key;
}

/** The memory's texts, the content last; empty ones left out. */
export function memoryTexts(m: ScreenableMemory): Part[] {
  const parts: Part[] = [
    { field: 'title', label: '', text: m.title },
    ...m.tags.map((t, i): Part => ({ field: 'tags', label: `[tags[${i}]] `, text: t })),
    ...Object.entries(m.metadata).flatMap(([k, v]): Part[] => [
      { field: 'metadata', label: '[metadata key] ', text: k },
      ...(typeof v === 'string' ? [{ field: 'metadata', label: `[metadata.${shortKey(k)}] `, text: v } satisfies Part] : []),
    ]),
    { field: 'agent_id', label: '', text: m.agentId ?? '' },
    { field: 'content', label: '', text: m.content },
  ];
  return parts.filter((p) => p.text.trim() !== '');
}

/** One verdict for the memory; each pattern names the field it came from. */
export function screenMemoryForInjection(m: ScreenableMemory): MemoryScreenResult {
  const best = new Map<InjectionPatternId, MemoryInjectionPattern>();
  const keep = (p: InjectionPattern, field: ScreenedField) => {
    const prev = best.get(p.id);
    if (prev === undefined || p.weight > prev.weight) best.set(p.id, { ...p, field });
  };
  const parts = memoryTexts(m);
  const joinedText = parts.map((p) => p.text).join('\n');
  const joined = parts.length > 1 ? screenForInjection(joinedText).patterns : [];
  // The joined reading sees whatever a part alone would (parts start on a line of their own), unless
  // it was cut at the length cap.
  if (parts.length === 1 || joined.length > 0 || joinedText.length > MAX_SCREEN_CHARS) {
    for (const part of parts) for (const p of screenForInjection(part.text, part.label).patterns) keep(p, part.field);
  }
  for (const p of joined) keep(p, 'across-fields');
  const patterns = (Object.keys(INJECTION_RULES) as InjectionPatternId[]).flatMap((id) => best.get(id) ?? []);
  const score = combineWeights(patterns.map((p) => p.weight));
  return { flagged: score >= INJECTION_FLAG_THRESHOLD, score, patterns };
}
