import { extractFacts, normaliseName, type Fact, type FactOptions, type FactPredicate } from '../../../text/facts.js';
import type { Candidate, FieldValue } from '../model.js';
import { domainFromUrl } from './rule-derivations.js';

/**
 * The knowledge-graph engine's offline strategies, as pure functions:
 * - `stated_fact` / `inverse_fact`: facts the tenant's memories state about the object (matched by
 *   its normalised name as subject, or as object for inverse facts: "Sam is Dana's manager" gives
 *   Dana's manager, "Project Falcon is owned by Dana" gives Falcon's owner), mapped to fields;
 * - `relation_traversal`: a person's location from their employer's headquarters.
 *
 * Field confidence = fact confidence × the mapping's factor. Several memories agreeing on one value
 * combine by noisy-or, capped at the strongest single statement + 0.1 and at 0.95, so repetition
 * alone never turns a weak or past-tense statement into a committed value. A `left` fact (≥ 0.5)
 * suppresses that employer unless a later memory (by `createdAt`) states it again.
 */

export interface MemoryText {
  id: string;
  /** The version `content` is (a memory's content changes only with its version); absent: not known. */
  version?: number;
  content: string;
  /** ISO time; orders a `left` against a later "rejoined". */
  createdAt?: string;
  /** Who "I" is in this memory. */
  speaker?: string;
}

export interface KgOptions extends Pick<FactOptions, 'defaultRegion'> {
  /** The facts of a memory; default: extracted from its content now (the engine passes a memo). */
  factsOf?: (memory: MemoryText) => Fact[];
}

/** The facts a memory states, extracted from its content. */
export const extractMemoryFacts = (memory: MemoryText, options: KgOptions = {}): Fact[] =>
  extractFacts(memory.content, { speaker: memory.speaker, defaultRegion: options.defaultRegion });

interface Mapping {
  field: string;
  predicate: FactPredicate;
  /** `subject`: the object is the fact's subject (stated); `object`: it is the fact's object (inverse). */
  side: 'subject' | 'object';
  factor: number;
  /** Highest confidence this mapping alone may give (a former employer stays a proposal). */
  cap?: number;
  transform?: (value: string) => string | null;
}

const M = (field: string, predicate: FactPredicate, side: Mapping['side'], factor: number, extra: Partial<Mapping> = {}): Mapping => ({
  field,
  predicate,
  side,
  factor,
  ...extra,
});

/** Which fact fills which field of the built-in types, and how strongly. */
export const FACT_MAPPINGS: Record<string, Mapping[]> = {
  person: [
    M('employer', 'works_at', 'subject', 1),
    M('employer', 'joined', 'subject', 0.85),
    M('employer', 'worked_at', 'subject', 0.6, { cap: 0.6 }),
    M('job_title', 'job_title', 'subject', 1),
    M('location', 'lives_in', 'subject', 1),
    M('location', 'based_in', 'subject', 0.9),
    M('manager', 'reports_to', 'subject', 1),
    M('manager', 'manager_of', 'object', 1),
    M('email', 'email', 'subject', 1),
    M('phone', 'phone', 'subject', 1),
  ],
  organization: [
    M('headquarters', 'headquartered_in', 'subject', 1),
    M('headquarters', 'based_in', 'subject', 0.9),
    M('website', 'website', 'subject', 1),
    M('domain', 'website', 'subject', 0.95, { transform: domainFromUrl }),
  ],
  project: [
    M('owner', 'owns', 'object', 1),
    M('owner', 'leads', 'object', 0.9),
    M('status', 'status', 'subject', 1),
    M('organization', 'belongs_to', 'subject', 1),
  ],
};

/** The mappings of a type; none for a tenant type, whatever its name (even an Object.prototype member's). */
const mappingsOf = (type: string): Mapping[] => (Object.hasOwn(FACT_MAPPINGS, type) ? FACT_MAPPINGS[type]! : []);

/** The fields stated facts can fill for objects of `type`. */
export const factFieldsOf = (type: string): Set<string> => new Set(mappingsOf(type).map((m) => m.field));

const LEFT_SUPPRESSES_AT = 0.5;

/** The key a name is matched by; a project is the same with or without the word "project". */
export function matchKey(type: string, name: string): string {
  const key = normaliseName(name);
  return type === 'project' ? key.replace(/^project\s+/, '').replace(/\s+project$/, '') || key : key;
}

/**
 * How well a name in a fact denotes the object: 1 for the same key; for a person, 0.75 for the first
 * or last name alone ("Dana" for Dana Whitfield), 1 if the memory also spells the full name out.
 */
function nameMatch(type: string, objectKey: string, said: string, memoryKey: string): number {
  const key = matchKey(type, said);
  if (key === objectKey) return 1;
  if (type !== 'person' || key.includes(' ')) return 0;
  const parts = objectKey.split(' ');
  if (parts.length < 2 || (key !== parts[0] && key !== parts[parts.length - 1])) return 0;
  return ` ${memoryKey} `.includes(` ${objectKey} `) ? 1 : 0.75;
}

/** Noisy-or of independent confidences, capped at the strongest + 0.1 and at 0.95. */
export function combineConfidences(values: number[]): number {
  if (values.length === 0) return 0;
  const strongest = Math.max(...values);
  const noisyOr = 1 - values.reduce((miss, c) => miss * (1 - c), 1);
  return Math.round(Math.min(noisyOr, strongest + 0.1, 0.95) * 100) / 100;
}

interface Contribution {
  value: string;
  confidence: number;
  memoryId: string;
  inverse: boolean;
  at: string | undefined;
}

/** Candidates for an object of `type` named `name`, from the memories that mention it. */
export function factCandidates(type: string, name: string, memories: MemoryText[], options: KgOptions = {}): Candidate[] {
  const mappings = mappingsOf(type);
  const objectKey = matchKey(type, name);
  if (!objectKey || mappings.length === 0) return [];
  const byField = new Map<string, Map<string, Contribution[]>>();
  const left = new Map<string, string | undefined>(); // employer key → latest `left` time

  for (const memory of memories) {
    const memoryKey = normaliseName(memory.content);
    const facts: Fact[] = options.factsOf ? options.factsOf(memory) : extractMemoryFacts(memory, options);
    for (const fact of facts) {
      if (fact.predicate === 'left' && fact.confidence >= LEFT_SUPPRESSES_AT && nameMatch(type, objectKey, fact.subject, memoryKey) > 0) {
        const key = normaliseName(fact.object);
        const prev = left.get(key);
        left.set(key, prev === undefined || (memory.createdAt ?? '') > prev ? (memory.createdAt ?? '') : prev);
      }
      for (const mapping of mappings) {
        if (mapping.predicate !== fact.predicate) continue;
        const match = nameMatch(type, objectKey, mapping.side === 'subject' ? fact.subject : fact.object, memoryKey);
        if (match === 0) continue;
        const said = mapping.side === 'subject' ? fact.object : fact.subject;
        const value = mapping.transform ? mapping.transform(said) : said;
        if (!value) continue;
        const confidence = Math.min(fact.confidence * mapping.factor * match, mapping.cap ?? 1);
        const values = byField.get(mapping.field) ?? new Map<string, Contribution[]>();
        const valueKey =
          mapping.field === 'email' || mapping.field === 'phone' || mapping.field === 'domain' ? value : normaliseName(value);
        values.set(valueKey, [
          ...(values.get(valueKey) ?? []),
          { value, confidence, memoryId: memory.id, inverse: mapping.side === 'object', at: memory.createdAt },
        ]);
        byField.set(mapping.field, values);
      }
    }
  }

  const out: Candidate[] = [];
  for (const [field, values] of byField) {
    for (const [valueKey, contributions] of values) {
      if (field === 'employer' && left.has(valueKey)) {
        const leftAt = left.get(valueKey)!;
        const restated = contributions.some((c) => c.at !== undefined && leftAt !== '' && c.at > leftAt);
        if (!restated) continue;
      }
      // One vote per memory: a memory repeating itself is not agreement.
      const perMemory = new Map<string, Contribution>();
      for (const c of contributions) {
        const seen = perMemory.get(c.memoryId);
        if (!seen || seen.confidence < c.confidence) perMemory.set(c.memoryId, c);
      }
      const votes = [...perMemory.values()].sort((a, b) => b.confidence - a.confidence);
      out.push({
        field,
        value: votes[0]!.value,
        confidence: combineConfidences(votes.map((v) => v.confidence)),
        strategy: votes.every((v) => v.inverse) ? 'inverse_fact' : 'stated_fact',
        sourceRefs: votes.map((v) => `memory:${v.memoryId}`),
      });
    }
  }
  return out.sort((a, b) => a.field.localeCompare(b.field) || b.confidence - a.confidence);
}

/** A knowledge object as the traversal reads it: its id and stored field values. */
export interface KnownObject {
  id: string;
  fields: Record<string, FieldValue | undefined>;
}

/** Share of the headquarters' confidence a person's location inherits: people often work elsewhere. */
export const TRAVERSAL_FACTOR = 0.6;

/**
 * `relation_traversal`: a person's location from the headquarters of the organisation named as
 * their employer (matched by normalised name). Proposals only under the default thresholds.
 */
export function locationFromEmployer(employer: string | null | undefined, organizations: KnownObject[]): Candidate[] {
  if (!employer) return [];
  const key = normaliseName(employer);
  const byValue = new Map<string, Candidate>();
  for (const org of organizations) {
    const name = org.fields.name?.value;
    const hq = org.fields.headquarters;
    if (typeof name !== 'string' || normaliseName(name) !== key || !hq || typeof hq.value !== 'string' || !hq.value) continue;
    const confidence = Math.round(TRAVERSAL_FACTOR * hq.confidence * 100) / 100;
    const valueKey = normaliseName(hq.value);
    const seen = byValue.get(valueKey);
    if (seen) {
      seen.sourceRefs.push(`knowledge:${org.id}`);
      seen.confidence = Math.max(seen.confidence, confidence);
    } else {
      byValue.set(valueKey, {
        field: 'location',
        value: hq.value,
        confidence,
        strategy: 'relation_traversal',
        sourceRefs: [`knowledge:${org.id}`],
      });
    }
  }
  return [...byValue.values()];
}
