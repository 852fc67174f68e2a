/**
 * Loader for the public LoCoMo format (`locomo10.json`, snap-research/locomo) and its normalised form.
 *
 * Input: a JSON array of
 *   { sample_id, conversation: { speaker_a, speaker_b, session_N_date_time, session_N: [{speaker, dia_id,
 *     text, ...}] }, qa: [{ question, answer?, evidence: string[], category }] }
 * The real file carries more keys (`img_url`, `blip_caption`, `query`, `observation`, `session_summary`,
 * `event_summary`, `adversarial_answer`, ...). We are lenient with keys we do not use (ignored) and
 * strict with the ones we do (wrong type or missing → `DatasetError` naming the file and the entry).
 *
 * Decisions that matter for scoring:
 * - Only categories 1–4 are scored. Category 5 (adversarial: the answer is not in the dialogue) is
 *   counted in `excluded.adversarial` and dropped, as in published evaluations.
 * - Evidence entries may hold several ids in one string (`"D8:6; D9:17"`); they are split on `;`, `,`
 *   and whitespace and deduped (`normaliseEvidence`).
 * - Evidence ids are then checked against the conversation's turns. The public file has a few typos
 *   (`"D:11:26"` for `D11:26`, a bare `"D"`, ids past the end of a session). A `D:N:M` typo is repaired;
 *   any other unknown id is dropped with a warning, because it can never be retrieved and would only
 *   cap recall below 1 for a reason that has nothing to do with the search.
 * - A scored-category question left with no evidence cannot be scored (recall is 0/0); it is counted in
 *   `excluded.noEvidence` and dropped.
 * - Turn ids (`dia_id`) repeat across conversations (every conversation has `D1:1`), so relevance is
 *   only meaningful within one conversation: the run must scope each question's search to its own
 *   conversation (or map ids through `turnKey`).
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { ScoredCategory } from './metrics.js';

/** One dialogue turn, the unit of retrieval. */
export interface Turn {
  /** The LoCoMo `dia_id`, e.g. `D3:14` (session 3, turn 14). Unique within its conversation only. */
  turnId: string;
  speaker: string;
  text: string;
  /** The session's `session_N_date_time` as written in the file, e.g. `2:17 pm on 9 May, 2023`. */
  sessionDate: string;
  /** `sessionDate` as an ISO 8601 UTC timestamp when it parses, else null (the file has no time zone). */
  sessionTimestamp: string | null;
  /** Session number N from the `session_N` key. */
  session: number;
  /** `blip_caption` of an image shared in the turn, when present (some pipelines append it to the text). */
  imageCaption?: string;
}

/** One scored question. `evidence` is non-empty and every id in it is a `turnId` of the same conversation. */
export interface Question {
  question: string;
  category: ScoredCategory;
  evidence: string[];
  /** The reference answer as text, when the file has one (not used for retrieval scoring). */
  answer?: string;
}

export interface Conversation {
  sampleId: string;
  speakerA: string;
  speakerB: string;
  /** In session order, then file order within a session. */
  turns: Turn[];
  questions: Question[];
  /** Questions dropped from this conversation, by reason. */
  excluded: { adversarial: number; noEvidence: number };
}

export interface Dataset {
  /** Where it came from: the file path as given, or `synthetic`. Used in messages and the report. */
  source: string;
  conversations: Conversation[];
  /** Non-fatal problems found while normalising (repaired or dropped evidence ids). */
  warnings: string[];
}

/** A malformed dataset. The message names the file and, where relevant, the entry and the field. */
export class DatasetError extends Error {
  override readonly name = 'DatasetError';
}

/** Key that is unique across the whole dataset (turn ids repeat between conversations). */
export function turnKey(sampleId: string, turnId: string): string {
  return `${sampleId}#${turnId}`;
}

// ---------------------------------------------------------------------------------------------------
// Schemas: only the fields we use. zod objects strip unknown keys, which is the leniency we want.

const nonEmpty = z.string().min(1);

const turnSchema = z.object({
  speaker: nonEmpty,
  dia_id: nonEmpty,
  text: z.string(),
  blip_caption: z.string().optional(),
});

const qaSchema = z.object({
  question: nonEmpty,
  // Not used for scoring; the public file has strings, numbers and (for category 5) no answer at all.
  answer: z.union([z.string(), z.number(), z.null()]).optional(),
  evidence: z.array(z.string()).optional(),
  // Checked by hand (see `categoryOf`) so the message can say what is allowed.
  category: z.unknown(),
});

function categoryOf(value: unknown, where: string, fail: (m: string) => never): 1 | 2 | 3 | 4 | 5 {
  if (value === undefined) fail(`${where}.category is missing`);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 5) {
    fail(`${where}.category must be an integer from 1 to 5 (got ${JSON.stringify(value)})`);
  }
  return value as 1 | 2 | 3 | 4 | 5;
}

const entrySchema = z.object({
  sample_id: nonEmpty,
  // Session keys are dynamic (`session_N`, `session_N_date_time`) and are checked by hand below.
  conversation: z.looseObject({ speaker_a: nonEmpty, speaker_b: nonEmpty }),
  qa: z.array(z.unknown()),
});

// ---------------------------------------------------------------------------------------------------
// Error messages. zod's defaults ("Invalid input: expected array, received string") are replaced by
// short field-level sentences: "qa[12].evidence must be an array".

type PathKey = PropertyKey;

function formatPath(path: readonly PathKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

function valueAt(root: unknown, path: readonly PathKey[]): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key as string];
  }
  return cur;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const EXPECTED_WORDS: Record<string, string> = {
  array: 'an array',
  object: 'an object',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
};

function issueMessage(issue: z.core.$ZodIssue, root: unknown, prefix: readonly PathKey[]): string {
  const path = [...prefix, ...issue.path];
  const where = formatPath(path);
  const actual = valueAt(root, issue.path);
  switch (issue.code) {
    case 'invalid_type': {
      if (actual === undefined) return `${where} is missing`;
      const expected = EXPECTED_WORDS[issue.expected] ?? issue.expected;
      return `${where} must be ${expected} (got ${describeType(actual)})`;
    }
    case 'too_small':
      return issue.origin === 'string' ? `${where} must not be empty` : `${where} must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return `${where} must be at most ${String(issue.maximum)}`;
    case 'invalid_union':
      return `${where} has an unsupported type (${describeType(actual)})`;
    default:
      return `${where}: ${issue.message}`;
  }
}

function parseWith<T>(schema: z.ZodType<T>, value: unknown, prefix: readonly PathKey[], fail: (m: string) => never): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  if (!first) fail(`${formatPath(prefix)} is invalid`);
  // A message for the first problem keeps the error readable; one fix at a time is normal for data files.
  return fail(issueMessage(first as z.core.$ZodIssue, value, prefix));
}

// ---------------------------------------------------------------------------------------------------
// Evidence normalisation.

/**
 * Split evidence entries into individual ids: an entry may hold several ids separated by `;`, `,` or
 * whitespace. Empty pieces are dropped; duplicates are removed keeping the first occurrence.
 */
export function normaliseEvidence(entries: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    for (const piece of entry.split(/[;,\s]+/)) {
      if (piece !== '' && !seen.has(piece)) {
        seen.add(piece);
        out.push(piece);
      }
    }
  }
  return out;
}

/**
 * Map normalised evidence ids onto the conversation's turn ids. Known ids pass; the `D:N:M` typo is
 * repaired to `DN:M` when that turn exists; anything else is dropped. Each repair or drop is reported.
 */
export function resolveEvidence(
  ids: readonly string[],
  turnIds: ReadonlySet<string>,
): { evidence: string[]; repaired: string[]; dropped: string[] } {
  const evidence: string[] = [];
  const repaired: string[] = [];
  const dropped: string[] = [];
  for (const id of ids) {
    let resolved: string | undefined;
    if (turnIds.has(id)) {
      resolved = id;
    } else {
      const typo = /^D:(\d+):(\d+)$/.exec(id);
      const fixed = typo ? `D${typo[1]}:${typo[2]}` : undefined;
      if (fixed !== undefined && turnIds.has(fixed)) {
        resolved = fixed;
        repaired.push(`${id} → ${fixed}`);
      } else {
        dropped.push(id);
      }
    }
    if (resolved !== undefined && !evidence.includes(resolved)) evidence.push(resolved);
  }
  return { evidence, repaired, dropped };
}

// ---------------------------------------------------------------------------------------------------
// Session dates.

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/**
 * Parse LoCoMo's `"2:17 pm on 9 May, 2023"` into an ISO timestamp (treated as UTC, since the file has
 * no zone). Returns null for anything else rather than failing: the date is informative, not scored.
 */
export function parseSessionDate(text: string): string | null {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(text);
  if (!m) return null;
  const [, hh, mm, ampm, day, monthName, year] = m as unknown as [string, string, string, string, string, string, string];
  const month = MONTHS.indexOf(monthName.toLowerCase());
  let hour = Number(hh);
  if (month < 0 || hour < 1 || hour > 12) return null;
  if (ampm.toLowerCase() === 'pm' && hour !== 12) hour += 12;
  if (ampm.toLowerCase() === 'am' && hour === 12) hour = 0;
  const date = new Date(Date.UTC(Number(year), month, Number(day), hour, Number(mm)));
  // Reject rollover such as 31 June → 1 July.
  if (date.getUTCDate() !== Number(day) || date.getUTCMonth() !== month) return null;
  return date.toISOString();
}

// ---------------------------------------------------------------------------------------------------
// Normalisation of a parsed JSON value.

function answerText(answer: string | number | null | undefined): string | undefined {
  if (answer === undefined || answer === null) return undefined;
  return String(answer);
}

function normaliseEntry(raw: unknown, index: number, source: string, warnings: string[]): Conversation {
  // Until sample_id is known the label is just the index; afterwards messages name both.
  let label = `entry ${index}`;
  const fail = (message: string): never => {
    throw new DatasetError(`${source}: ${label}: ${message}`);
  };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail(`must be an object (got ${describeType(raw)})`);
  const sampleId = (raw as { sample_id?: unknown }).sample_id;
  if (typeof sampleId === 'string' && sampleId !== '') label = `entry ${index} (sample_id ${sampleId})`;
  const entry = parseWith(entrySchema, raw, [], fail);
  label = `entry ${index} (sample_id ${entry.sample_id})`;

  // Sessions: every `session_N` key holding turns. Keys are sorted numerically, not lexically
  // (session_10 after session_9).
  const conv = entry.conversation as Record<string, unknown>;
  const sessionNumbers = Object.keys(conv)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);

  const turns: Turn[] = [];
  const turnIds = new Set<string>();
  for (const n of sessionNumbers) {
    const key = `session_${n}`;
    const list = parseWith(z.array(z.unknown()), conv[key], ['conversation', key], fail);
    if (list.length === 0) continue;
    const dateKey = `${key}_date_time`;
    const sessionDate = parseWith(nonEmpty, conv[dateKey], ['conversation', dateKey], fail);
    const sessionTimestamp = parseSessionDate(sessionDate);
    list.forEach((rawTurn, i) => {
      const t = parseWith(turnSchema, rawTurn, ['conversation', key, i], fail);
      if (turnIds.has(t.dia_id)) fail(`conversation.${key}[${i}].dia_id ${t.dia_id} is a duplicate`);
      turnIds.add(t.dia_id);
      const turn: Turn = { turnId: t.dia_id, speaker: t.speaker, text: t.text, sessionDate, sessionTimestamp, session: n };
      if (t.blip_caption !== undefined) turn.imageCaption = t.blip_caption;
      turns.push(turn);
    });
  }
  if (turns.length === 0) fail('conversation has no turns (no non-empty session_N arrays)');

  const questions: Question[] = [];
  const excluded = { adversarial: 0, noEvidence: 0 };
  entry.qa.forEach((rawQa, i) => {
    const qa = parseWith(qaSchema, rawQa, ['qa', i], fail);
    const category = categoryOf(qa.category, `qa[${i}]`, fail);
    if (category === 5) {
      excluded.adversarial++;
      return;
    }
    if (qa.evidence === undefined) fail(`qa[${i}].evidence is missing`);
    const { evidence, repaired, dropped } = resolveEvidence(normaliseEvidence(qa.evidence ?? []), turnIds);
    const where = `${source}: ${label}: qa[${i}]`;
    if (repaired.length > 0) warnings.push(`${where}: repaired evidence ${repaired.join(', ')}`);
    if (dropped.length > 0) warnings.push(`${where}: dropped evidence not naming a turn: ${dropped.join(', ')}`);
    if (evidence.length === 0) {
      excluded.noEvidence++;
      warnings.push(`${where}: no usable evidence, question excluded`);
      return;
    }
    const question: Question = { question: qa.question, category, evidence };
    const answer = answerText(qa.answer);
    if (answer !== undefined) question.answer = answer;
    questions.push(question);
  });

  return {
    sampleId: entry.sample_id,
    speakerA: entry.conversation.speaker_a,
    speakerB: entry.conversation.speaker_b,
    turns,
    questions,
    excluded,
  };
}

/**
 * Validate and normalise an already-parsed LoCoMo JSON value. `source` names the file in messages.
 * Throws `DatasetError` on the first structural problem.
 */
export function parseDataset(raw: unknown, source: string): Dataset {
  if (!Array.isArray(raw)) {
    throw new DatasetError(`${source}: top level must be a JSON array of conversations (got ${describeType(raw)})`);
  }
  if (raw.length === 0) throw new DatasetError(`${source}: contains no conversations`);
  const warnings: string[] = [];
  const conversations = raw.map((entry, i) => normaliseEntry(entry, i, source, warnings));
  const seen = new Map<string, number>();
  conversations.forEach((c, i) => {
    const earlier = seen.get(c.sampleId);
    if (earlier !== undefined) {
      // Questions are scoped per conversation by sample_id; two with the same id would mix.
      throw new DatasetError(`${source}: entry ${i} (sample_id ${c.sampleId}): sample_id repeats entry ${earlier}`);
    }
    seen.set(c.sampleId, i);
  });
  return { source, conversations, warnings };
}

/** Read, parse and normalise a LoCoMo file. Throws `DatasetError` (file unreadable, bad JSON, bad shape). */
export async function loadDataset(path: string): Promise<Dataset> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new DatasetError(`${path}: cannot read file: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new DatasetError(`${path}: not valid JSON: ${(err as Error).message}`);
  }
  return parseDataset(raw, path);
}

/** Keep the first `n` conversations (for quick runs); undefined keeps all. */
export function limitConversations(dataset: Dataset, n: number | undefined): Dataset {
  if (n === undefined || n >= dataset.conversations.length) return dataset;
  return { ...dataset, conversations: dataset.conversations.slice(0, n) };
}

/** Totals across conversations, for the report. */
export function datasetCounts(dataset: Dataset): {
  conversations: number;
  turns: number;
  questions: number;
  excludedAdversarial: number;
  excludedNoEvidence: number;
} {
  let turns = 0;
  let questions = 0;
  let excludedAdversarial = 0;
  let excludedNoEvidence = 0;
  for (const c of dataset.conversations) {
    turns += c.turns.length;
    questions += c.questions.length;
    excludedAdversarial += c.excluded.adversarial;
    excludedNoEvidence += c.excluded.noEvidence;
  }
  return { conversations: dataset.conversations.length, turns, questions, excludedAdversarial, excludedNoEvidence };
}
