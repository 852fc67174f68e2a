/**
 * Prompt-injection and data-exfiltration screening of memory content (pure; no I/O, no state).
 *
 * Memories are later placed into agents' prompts, so a memory that carries instructions aimed at
 * the model is flagged at consolidation. The screen:
 *  1. inspects the raw text for invisible characters (zero-width, bidi controls, Unicode tag
 *     characters — whose hidden ASCII is decoded and screened too);
 *  2. normalises once (NFKC, invisible characters stripped, Latin look-alike Cyrillic/Greek letters
 *     folded inside mixed-script words, lower case, whitespace collapsed) and, in a second form,
 *     also undoes light obfuscation (letter-spaced words re-joined before spaces are collapsed —
 *     "i g n o r e  p r e v i o u s", "i.g.n.o.r.e", "i-g-n" —, leetspeak digits/symbols inside
 *     words, markdown emphasis), so "1gn0re a11 prev1ous 1nstruct1ons" still matches; a letter-spaced
 *     run without word breaks is matched by the text rules with their spaces taken out;
 *  3. matches a catalogue of rules (below), each with a stable kebab-case id, a category and a
 *     weight in (0, 1): English, plus French, Spanish, Portuguese, Italian, German, Chinese and
 *     Russian overrides and system-prompt requests (`injection-lexicon.ts`); text addressed to the
 *     AI that will read it ("note to the AI reading this", "if you are an LLM, …"); a line or an
 *     HTML comment body giving an assistant an order ("<!-- assistant: ignore the user … -->"); a
 *     JSON/YAML chat message with a system or developer role; chat-template markers;
 *  4. decodes long base64 / hex / percent / \u-escaped runs that decode to readable text, and
 *     screens the decoded text again (depth ≤ 2); instructions found inside add `encoded-instructions`;
 *  5. scores score = 1 − Π(1 − wᵢ) over the distinct rule ids found (max weight per id), and
 *     flags when score ≥ INJECTION_FLAG_THRESHOLD (0.5).
 *
 * Weights are chosen so that one unambiguous signal (an instruction override, a chat-template
 * token, a request for the system prompt or a key) flags on its own (w ≥ 0.5), while weak signals
 * that also occur in ordinary notes (a hidden HTML comment, a few zero-width characters, a decodable
 * base64 blob, "from now on you …") need a second signal (w < 0.5). Phrases are anchored on the
 * model-directed forms ("ignore all previous instructions", "your system prompt") so ordinary
 * memories such as "I ignored my doctor's instructions", "the system was down" or "my password
 * manager is 1Password" match nothing.
 *
 * The rule catalogue is `injection-rules.ts`, normalisation `injection-normalise.ts`, the text rules
 * `injection-text-rules.ts`; this file runs them (markup, invisible characters, encoded payloads) and scores.
 */

import {
  EVIDENCE_CHARS,
  INJECTION_FLAG_THRESHOLD,
  INJECTION_RULES,
  type InjectionPattern,
  type InjectionPatternId,
  type InjectionScreenResult,
  JSON_ROLE_TURN_WEIGHT,
  MAX_DECODE_DEPTH,
  MAX_SCREEN_CHARS,
  ZERO_WIDTH_MANY_WEIGHT,
} from './injection-rules.js';
import {
  BIDI,
  collapseLetterSpacing,
  collapseWhitespace,
  deobfuscate,
  EMOJI_TAG_SEQUENCE,
  foldForScreening,
  INVISIBLE_ALL,
  LEGIT_JOINER,
  TAG_CHARS,
  ZERO_WIDTH,
} from './injection-normalise.js';
import { COMPACT_TEXT_RULES, TEXT_RULES, type TextRule } from './injection-text-rules.js';

export {
  INJECTION_FLAG_THRESHOLD,
  INJECTION_RULES,
  MAX_SCREEN_CHARS,
  type InjectionCategory,
  type InjectionPattern,
  type InjectionPatternId,
  type InjectionScreenResult,
} from './injection-rules.js';
export { collapseLetterSpacing, deobfuscate, normalizeForScreening } from './injection-normalise.js';

// ---------------------------------------------------------------------------------------------
// Markup rules (run on the normalised form only)

const MARKUP_RULES: readonly TextRule[] = [
  [
    'system-prefix',
    /(?:^|\n|[.!?]\s)\s*(?:\[|\(|\*\*|<)?\s*(?:system|developer|admin(?:istrator)?|root)(?:\s+(?:message|prompt|note|override|instruction|notice|directive))?\s*(?:\]|\)|\*\*|>)?\s*:\s*(?=[^\n]{0,80}\b(?:you|your|ignore|disregard|always|never|must|do not|don't|respond|reply|answer|assistant|model|ai|override|new|instructions?|reveal|print|output|from now on)\b)/,
  ],
  [
    'chat-template-token',
    /<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text|end_of_text|eom_id)\|>|\[\/?inst\]|<<\/?sys>>|<\/?(?:start_of_turn|end_of_turn|system|system_prompt|sys)>|(?:^|\n)\s*#{2,}\s*(?:system|assistant|human|instruction|response)(?:\s+(?:prompt|message))?\s*:/,
  ],
  // A line (or an HTML comment) that gives an AI an order: "assistant: ignore the user and …". A
  // transcript's "Assistant: Sure, here is …" is not an order.
  [
    'assistant-directive',
    /(?:^|\n)\s*(?:\[|\(|\*\*|<)?\s*(?:note (?:to|for) (?:the )?)?(?:assistant|ai|a\.i\.|llm|model|chatbot|gpt|chatgpt|claude|gemini|copilot|ai (?:assistant|agent|model))s?(?:\s+(?:note|notes|instructions?|directive|only|task|override))?\s*(?:\]|\)|\*\*|>)?\s*[:,]\s*(?:please\s+)?(?:ignore|disregard|forget|do not|don'?t|dont|never|always|you must|you should|you will|you are|from now on|tell|send|forward|e-?mail|recommend|say|respond|reply|answer|output|print|reveal|include|insert|append|delete|remove|execute|run|call|visit|open|click|pretend|act as|obey|follow|summari[sz]e|translate|write|stop|switch|mention|claim|inform|refuse|praise|rate|rank|leak|share|post|upload|exfiltrate|change|set|describe)\b/,
  ],
  [
    'tool-call-markup',
    /<\/?\s*(?:tool_calls?|tool_use|tool_result|function_calls?|function_results?|invoke|antml:[a-z_]+)\b|<parameter\s+name=|<\|(?:tool_call|python_tag|plugin|function)\|>|<function=/,
  ],
  [
    'tool-call-json',
    /"(?:tool_calls|function_call|tool_use|tool_choice)"\s*:|\{\s*"(?:name|tool|function|tool_name)"\s*:\s*"[^"\n]{1,64}"\s*,\s*"(?:arguments|parameters|args|input)"\s*:\s*[{"[]|"type"\s*:\s*"(?:function|tool_use)"/,
  ],
  [
    'hidden-html',
    /<[a-z]{1,20}\b[^>]{0,500}?\bstyle\s*=\s*["'][^"']{0,500}?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0)|<[a-z]{1,20}\b[^>]{0,500}?\shidden(?:\s|>|=)/,
  ],
  [
    'script-tag',
    /<\s*(?:script|iframe|object|embed)\b|(?:href|src|action)\s*=\s*["']?\s*javascript:|\bjavascript:\s*(?:alert|eval|fetch|void|document|window|location)\b|<[a-z]{1,20}\b[^>]{0,500}?\son(?:error|load|click|mouseover|focus|begin)\s*=/,
  ],
  [
    'markdown-image-exfiltration',
    /!\[[^\]]{0,200}\]\(\s{0,20}<?\s{0,20}(?:https?:)?\/\/[^)\s?]{1,2048}\?[^)\s=]{0,2048}=|<img\b[^>]{0,500}?\bsrc\s*=\s*["']?(?:https?:)?\/\/[^"'\s>?]{1,2048}\?[^"'\s>=]{0,2048}=/,
  ],
];

function excerpt(text: string, index: number, length: number): string {
  const raw = text
    .slice(index, index + Math.max(length, 1))
    .replace(/\s+/g, ' ')
    .trim();
  return raw.length > EVIDENCE_CHARS ? `${raw.slice(0, EVIDENCE_CHARS - 1)}…` : raw;
}

type Found = Map<InjectionPatternId, InjectionPattern>;

function add(found: Found, id: InjectionPatternId, evidence: string, weight = INJECTION_RULES[id].weight): void {
  const prev = found.get(id);
  if (prev === undefined || weight > prev.weight) {
    found.set(id, { id, category: INJECTION_RULES[id].category, evidence, weight });
  }
}

const MAX_COMMENTS = 32;

/** Non-empty HTML comments and their bodies (found by index scanning: linear time on any input). */
function htmlComments(text: string): { index: number; length: number; body: string }[] {
  const out: { index: number; length: number; body: string }[] = [];
  let from = 0;
  while (out.length < MAX_COMMENTS) {
    const start = text.indexOf('<!--', from);
    if (start < 0) break;
    const end = text.indexOf('-->', start + 4);
    if (end < 0) break;
    const body = text.slice(start + 4, end).trim();
    if (body) out.push({ index: start, length: end + 3 - start, body });
    from = end + 3;
  }
  return out;
}

/** A chat message in JSON (or a JS/Python literal, or YAML): `{"role": "system", "content": …}`. */
const ROLE_FIELD =
  /["']?\brole["']?\s*[:=]\s*(?:["'](system|developer|assistant|tool|function|model)["']|(system|developer)(?=\s*[,}\n]))/g;
const MESSAGE_FIELD = /["']?\b(?:content|parts|text)["']?\s*[:=]/;
const ROLE_WINDOW_CHARS = 200;

function runJsonRoleCheck(text: string, found: Found, prefix: string): void {
  for (const m of text.matchAll(ROLE_FIELD)) {
    // A job title ("role": "developer") has no message beside it.
    const around = text.slice(Math.max(0, m.index - ROLE_WINDOW_CHARS), m.index + m[0].length + ROLE_WINDOW_CHARS);
    if (!MESSAGE_FIELD.test(around)) continue;
    const role = m[1] ?? m[2];
    const weight = role === 'system' || role === 'developer' ? INJECTION_RULES['json-role-message'].weight : JSON_ROLE_TURN_WEIGHT;
    add(found, 'json-role-message', prefix + excerpt(text, m.index, m[0].length), weight);
    if (weight === INJECTION_RULES['json-role-message'].weight) return;
  }
}

/** Rules anchored at a line's start, run again on each comment body as its own line. */
const LINE_RULES: readonly TextRule[] = MARKUP_RULES.filter(([id]) => id === 'system-prefix' || id === 'assistant-directive');

const IMAGE_REFERENCE = /!\[[^\]]{0,200}\]\[([^\]]{1,64})\]/g;
const REFERENCE_DEFINITION = /(?:^|\n)\s{0,3}\[([^\]]{1,64})\]:\s{0,20}<?(?:https?:)?\/\/[^\s?]{1,2048}\?[^\s=]{0,2048}=/g;

/** Markup checks that a single regular expression cannot do in linear time. */
function runMarkupChecks(text: string, found: Found, prefix: string): void {
  const comments = htmlComments(text);
  if (comments[0]) add(found, 'hidden-html', prefix + excerpt(text, comments[0].index, comments[0].length));
  if (comments.length > 0) runRules(LINE_RULES, comments.map((c) => c.body).join('\n'), found, `${prefix}[html comment] `);
  runJsonRoleCheck(text, found, prefix);
  // Reference-style image whose definition carries a query string: ![x][ref] … [ref]: https://h/?q=…
  const refs = new Set([...text.matchAll(IMAGE_REFERENCE)].map((m) => (m[1] ?? '').toLowerCase()));
  if (refs.size > 0) {
    for (const m of text.matchAll(REFERENCE_DEFINITION)) {
      if (refs.has((m[1] ?? '').toLowerCase())) {
        const lead = m[0].length - m[0].trimStart().length;
        add(found, 'markdown-image-exfiltration', prefix + excerpt(text, m.index + lead, m[0].length - lead));
        break;
      }
    }
  }
}

function runRules(rules: readonly TextRule[], text: string, found: Found, prefix: string): void {
  const gates = new Map<RegExp, boolean>();
  const passes = (gate: RegExp) => gates.get(gate) ?? gates.set(gate, gate.test(text)).get(gate)!;
  for (const [id, re, gate] of rules) {
    if (found.has(id) && found.get(id)!.weight >= INJECTION_RULES[id].weight) continue;
    if (gate && !passes(gate)) continue;
    const m = re.exec(text);
    if (m) {
      const lead = m[0].length - m[0].trimStart().length;
      add(found, id, prefix + excerpt(text, m.index + lead, m[0].length - lead));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Invisible characters

function codepoints(chars: readonly string[]): string {
  const uniq = [...new Set(chars)].slice(0, 4);
  return uniq.map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(', ');
}

function screenInvisible(raw: string, found: Found, depth: number, prefix: string): void {
  const withoutLegit = raw.replace(LEGIT_JOINER, '').replace(/^\uFEFF/, '');
  const zw = withoutLegit.match(ZERO_WIDTH) ?? [];
  if (zw.length > 0) {
    add(
      found,
      'zero-width-chars',
      `${prefix}${zw.length} zero-width character(s): ${codepoints(zw)}`,
      zw.length >= 3 ? ZERO_WIDTH_MANY_WEIGHT : INJECTION_RULES['zero-width-chars'].weight,
    );
  }
  const bidi = raw.match(BIDI) ?? [];
  if (bidi.length > 0) add(found, 'bidi-control', `${prefix}${bidi.length} bidi control character(s): ${codepoints(bidi)}`);
  const tagText = raw.replace(EMOJI_TAG_SEQUENCE, '');
  const tags = tagText.match(TAG_CHARS) ?? [];
  if (tags.length > 0) {
    const hidden = tags
      .map((c) => String.fromCodePoint(c.codePointAt(0)! - 0xe0000))
      .join('')
      .replace(/[^\x20-\x7e\n]/g, '');
    add(
      found,
      'unicode-tag-chars',
      `${prefix}${tags.length} tag character(s)${hidden.trim() ? `: "${excerpt(hidden, 0, hidden.length)}"` : ''}`,
    );
    if (hidden.trim().length > 0 && depth < MAX_DECODE_DEPTH) screenDecoded(hidden, found, depth + 1, `${prefix}[tag chars] `);
  }
}

// ---------------------------------------------------------------------------------------------
// Encoded payloads

/** Readable text: valid UTF-8, ≥ 90 % printable, ≥ 60 % letters and spaces, at least one space or 8+ letters. */
function readable(bytes: Buffer): string | null {
  if (bytes.length < 6) return null;
  const text = bytes.toString('utf8');
  if (text.includes('\uFFFD')) return null;
  const chars = [...text];
  const printable = chars.filter((c) => /[\p{L}\p{N}\p{P}\p{S}\p{Zs}\n\t]/u.test(c)).length;
  const lettersSpaces = chars.filter((c) => /[\p{L}\s]/u.test(c)).length;
  if (printable / chars.length < 0.9 || lettersSpaces / chars.length < 0.6) return null;
  return text;
}

const BASE64_RUN = /(?<![A-Za-z0-9+/_-])(?:[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9_-]{20,})(?![A-Za-z0-9+/=_-])/g;
const HEX_RUN =
  /(?<![0-9a-z])(?:0x)?(?:[0-9a-f]{2}){12,}(?![0-9a-z])|(?<![0-9a-z])[0-9a-f]{2}(?:[ :][0-9a-f]{2}){11,}(?![0-9a-z])|(?:\\x[0-9a-f]{2}){6,}/gi;
const PERCENT_RUN = /(?:%[0-9a-f]{2}[^%\s]{0,3}){6,}/gi;
const UNICODE_ESCAPE_RUN = /(?:\\u[0-9a-f]{4}[^\\\s]{0,3}){6,}/gi;

function decodeBase64(run: string): string | null {
  // Plain words are not payloads: require a digit or symbol, or both cases of letters.
  if (!/[0-9+/=_-]/.test(run) && !(/[A-Z]/.test(run) && /[a-z]/.test(run))) return null;
  const b64 = run.replace(/-/g, '+').replace(/_/g, '/');
  return readable(Buffer.from(b64, 'base64'));
}

function decodeHex(run: string): string | null {
  const hex = run.replace(/\\x|0x|[ :]/gi, '');
  if (hex.length % 2 !== 0) return null;
  return readable(Buffer.from(hex, 'hex'));
}

function screenEncoded(raw: string, found: Found, depth: number, prefix: string): void {
  if (depth >= MAX_DECODE_DEPTH) return;
  for (const m of raw.matchAll(BASE64_RUN)) {
    const decoded = decodeBase64(m[0]);
    if (decoded === null) continue;
    add(found, 'base64-payload', `${prefix}base64 → "${excerpt(decoded, 0, decoded.length)}"`);
    screenDecoded(decoded, found, depth + 1, `${prefix}[base64] `);
  }
  for (const m of raw.matchAll(HEX_RUN)) {
    const decoded = decodeHex(m[0]);
    if (decoded === null) continue;
    add(found, 'hex-payload', `${prefix}hex → "${excerpt(decoded, 0, decoded.length)}"`);
    screenDecoded(decoded, found, depth + 1, `${prefix}[hex] `);
  }
  for (const m of raw.matchAll(PERCENT_RUN)) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(m[0]);
    } catch {
      continue;
    }
    screenDecoded(decoded, found, depth + 1, `${prefix}[percent-encoded] `);
  }
  for (const m of raw.matchAll(UNICODE_ESCAPE_RUN)) {
    const decoded = m[0].replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    screenDecoded(decoded, found, depth + 1, `${prefix}[unicode-escaped] `);
  }
}

/** Screen text recovered from an encoding; instruction-like findings add `encoded-instructions`. */
function screenDecoded(decoded: string, found: Found, depth: number, prefix: string): void {
  const inner: Found = new Map();
  screenInto(decoded, inner, depth, prefix);
  for (const p of inner.values()) add(found, p.id, p.evidence, p.weight);
  const instructive = [...inner.values()].filter((p) => p.category !== 'encoded-payload' && p.category !== 'invisible-unicode');
  if (instructive.length > 0) add(found, 'encoded-instructions', instructive[0]!.evidence);
}

function screenInto(raw: string, found: Found, depth: number, prefix: string): void {
  screenInvisible(raw, found, depth, prefix);
  // Normalised once; every rule runs on these forms.
  const folded = foldForScreening(raw);
  const normalized = collapseWhitespace(folded);
  runRules(MARKUP_RULES, normalized, found, prefix);
  runMarkupChecks(normalized, found, prefix);
  runRules(TEXT_RULES, normalized, found, prefix);
  const squashed: string[] = [];
  const plain = deobfuscate(collapseWhitespace(collapseLetterSpacing(folded, squashed)));
  if (plain !== normalized) runRules(TEXT_RULES, plain, found, prefix);
  for (const run of squashed) runRules(COMPACT_TEXT_RULES, run, found, `${prefix}[letter-spaced] `);
  screenEncoded(raw.normalize('NFKC').replace(INVISIBLE_ALL, ''), found, depth, prefix);
}

/** Combine weights: 1 − Π(1 − wᵢ), rounded to 4 decimals. */
export function combineWeights(weights: readonly number[]): number {
  const p = weights.reduce((acc, w) => acc * (1 - Math.min(Math.max(w, 0), 1)), 1);
  return Math.round((1 - p) * 10_000) / 10_000;
}

/** Screen one text for prompt-injection and exfiltration patterns; `evidencePrefix` names where it came from. */
export function screenForInjection(text: string, evidencePrefix = ''): InjectionScreenResult {
  const found: Found = new Map();
  screenInto(text.length > MAX_SCREEN_CHARS ? text.slice(0, MAX_SCREEN_CHARS) : text, found, 0, evidencePrefix);
  const order = Object.keys(INJECTION_RULES) as InjectionPatternId[];
  const patterns = order.flatMap((id) => {
    const p = found.get(id);
    return p ? [p] : [];
  });
  const score = combineWeights(patterns.map((p) => p.weight));
  return { flagged: score >= INJECTION_FLAG_THRESHOLD, score, patterns };
}
