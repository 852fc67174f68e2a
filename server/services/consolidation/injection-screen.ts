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
 */

import { FOREIGN_AI_ADDRESS_RULES, FOREIGN_GATE, FOREIGN_OVERRIDE_RULES, FOREIGN_REVEAL_RULES, WB, WE } from './injection-lexicon.js';

export const INJECTION_FLAG_THRESHOLD = 0.5;

export type InjectionCategory =
  | 'instruction-override'
  | 'role-impersonation'
  | 'markup-smuggling'
  | 'invisible-unicode'
  | 'encoded-payload'
  | 'exfiltration'
  | 'social-engineering';

export type InjectionPatternId =
  | 'instruction-override'
  | 'new-instructions'
  | 'jailbreak-mode'
  | 'system-prefix'
  | 'chat-template-token'
  | 'role-reassignment'
  | 'assistant-directive'
  | 'json-role-message'
  | 'tool-call-markup'
  | 'tool-call-json'
  | 'hidden-html'
  | 'script-tag'
  | 'markdown-image-exfiltration'
  | 'zero-width-chars'
  | 'bidi-control'
  | 'unicode-tag-chars'
  | 'base64-payload'
  | 'hex-payload'
  | 'encoded-instructions'
  | 'system-prompt-exfiltration'
  | 'credential-exfiltration'
  | 'data-exfiltration'
  | 'ai-reader-address';

export interface InjectionPattern {
  /** Stable kebab-case rule id. */
  id: InjectionPatternId;
  category: InjectionCategory;
  /** Short excerpt (≤ 80 characters) of the normalised text that matched, or a description. */
  evidence: string;
  /** The rule's weight in the score. */
  weight: number;
}

export interface InjectionScreenResult {
  flagged: boolean;
  /** 1 − Π(1 − wᵢ) over distinct pattern ids; in [0, 1]. */
  score: number;
  /** One entry per distinct id, in catalogue order. */
  patterns: InjectionPattern[];
}

interface RuleMeta {
  category: InjectionCategory;
  weight: number;
}

/** The catalogue: category and weight of every rule id (the order is the report order). */
export const INJECTION_RULES: Readonly<Record<InjectionPatternId, RuleMeta>> = {
  'instruction-override': { category: 'instruction-override', weight: 0.8 },
  'new-instructions': { category: 'instruction-override', weight: 0.4 },
  'jailbreak-mode': { category: 'instruction-override', weight: 0.6 },
  'system-prefix': { category: 'role-impersonation', weight: 0.6 },
  'chat-template-token': { category: 'role-impersonation', weight: 0.9 },
  'role-reassignment': { category: 'role-impersonation', weight: 0.6 },
  'assistant-directive': { category: 'role-impersonation', weight: 0.6 },
  'json-role-message': { category: 'role-impersonation', weight: 0.8 },
  'tool-call-markup': { category: 'markup-smuggling', weight: 0.8 },
  'tool-call-json': { category: 'markup-smuggling', weight: 0.7 },
  'hidden-html': { category: 'markup-smuggling', weight: 0.4 },
  'script-tag': { category: 'markup-smuggling', weight: 0.75 },
  'markdown-image-exfiltration': { category: 'markup-smuggling', weight: 0.8 },
  'zero-width-chars': { category: 'invisible-unicode', weight: 0.35 },
  'bidi-control': { category: 'invisible-unicode', weight: 0.55 },
  'unicode-tag-chars': { category: 'invisible-unicode', weight: 0.9 },
  'base64-payload': { category: 'encoded-payload', weight: 0.3 },
  'hex-payload': { category: 'encoded-payload', weight: 0.3 },
  'encoded-instructions': { category: 'encoded-payload', weight: 0.9 },
  'system-prompt-exfiltration': { category: 'exfiltration', weight: 0.75 },
  'credential-exfiltration': { category: 'exfiltration', weight: 0.75 },
  'data-exfiltration': { category: 'exfiltration', weight: 0.7 },
  'ai-reader-address': { category: 'social-engineering', weight: 0.6 },
};

/** Weight of `json-role-message` for an assistant/tool/function turn (a chat log, or a forged reply). */
const JSON_ROLE_TURN_WEIGHT = 0.45;

/** Weight of `zero-width-chars` when three or more such characters are present. */
const ZERO_WIDTH_MANY_WEIGHT = 0.55;

/** Characters of one text screened (the rest is not read). */
export const MAX_SCREEN_CHARS = 200_000;
const MAX_DECODE_DEPTH = 2;
const EVIDENCE_CHARS = 80;

// ---------------------------------------------------------------------------------------------
// Normalisation

/** Zero-width and other invisible format characters (ZWSP, ZWNJ, ZWJ, WJ, invisible operators, BOM, Mongolian VS, Hangul fillers, CGJ). */
const ZERO_WIDTH = /[\u200B\u200C\u200D\u2060-\u2064\uFEFF\u180E\u034F\u115F\u1160\u3164\uFFA0]/gu;
const BIDI = /[\u202A-\u202E\u2066-\u2069]/gu;
const TAG_CHARS = /[\u{E0000}-\u{E007F}]/gu;
/** Emoji subdivision flags (🏴 + tag letters + cancel tag) are legitimate uses of tag characters. */
const EMOJI_TAG_SEQUENCE = /\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,7}\u{E007F}/gu;
/** ZWJ / ZWNJ inside emoji sequences or non-Latin scripts (Persian, Indic, …) are legitimate. */
const LEGIT_JOINER = /(?<=[\p{Extended_Pictographic}\u{1F3FB}-\u{1F3FF}\uFE0F]|[^\P{L}\p{Script=Latin}])[\u200C\u200D]|[\u200C\u200D](?=\p{Extended_Pictographic})/gu;
const INVISIBLE_ALL = /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u180E\u034F\u115F\u1160\u3164\uFFA0]|[\u{E0000}-\u{E007F}]/gu;

/** Cyrillic and Greek letters that render like Latin ones. */
const CONFUSABLES: Readonly<Record<string, string>> = {
  а: 'a', в: 'b', е: 'e', ё: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y',
  х: 'x', і: 'i', ї: 'i', ј: 'j', ѕ: 's', ԁ: 'd', һ: 'h', ӏ: 'l', ԛ: 'q', ԝ: 'w', ɡ: 'g', ɑ: 'a',
  А: 'A', В: 'B', Е: 'E', К: 'K', М: 'M', Н: 'H', О: 'O', Р: 'P', С: 'C', Т: 'T', Х: 'X', У: 'Y',
  І: 'I', Ј: 'J', Ѕ: 'S', α: 'a', ο: 'o', ρ: 'p', ι: 'i', κ: 'k', ν: 'v', τ: 't', υ: 'u', χ: 'x',
  ε: 'e', Α: 'A', Β: 'B', Ε: 'E', Ζ: 'Z', Η: 'H', Ι: 'I', Κ: 'K', Μ: 'M', Ν: 'N', Ο: 'O', Ρ: 'P',
  Τ: 'T', Υ: 'Y', Χ: 'X',
};
const CONFUSABLE_CLASS = `[${Object.keys(CONFUSABLES).join('')}]`;
const CONFUSABLE_CHARS = new RegExp(CONFUSABLE_CLASS, 'gu');
const HAS_CONFUSABLE = new RegExp(CONFUSABLE_CLASS, 'u');

function foldConfusables(text: string): string {
  // Only inside words that also contain a Latin letter: real Russian or Greek text is untouched.
  return text.replace(/[\p{L}\p{M}]+/gu, (word) =>
    /\p{Script=Latin}/u.test(word) && HAS_CONFUSABLE.test(word) ? word.replace(CONFUSABLE_CHARS, (c) => CONFUSABLES[c] ?? c) : word,
  );
}

/** NFKC, invisible characters removed, confusables folded, lower case: where every form starts. */
function foldForScreening(text: string): string {
  return foldConfusables(text.normalize('NFKC').replace(INVISIBLE_ALL, '')).toLowerCase();
}

function collapseWhitespace(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[^\S\n]+/g, ' ').replace(/ *\n[\s]*/g, '\n').trim();
}

/**
 * The normalised form used for matching: NFKC, invisible characters removed, confusables folded,
 * lower case, runs of spaces collapsed (line breaks kept as single "\n").
 */
export function normalizeForScreening(text: string): string {
  return collapseWhitespace(foldForScreening(text));
}

/** Four or more single letters on one line, each 1–3 non-letters apart ("i g n o r e", "i.g.n.o", "i-g-n"). */
const LETTER_RUN = /(?<![\p{L}\p{N}])\p{L}(?:[^\p{L}\p{N}\n]{1,3}\p{L}(?![\p{L}\p{N}])){3,}/gu;
const SQUASHED_MAX_CHARS = 300;

/**
 * Re-joins letter-spaced text before spaces are collapsed: the most frequent gap separates letters and
 * any other gap separates words ("i g n o r e  p r e v i o u s" → "ignore previous"). A run whose gaps
 * are all alike carries no word breaks; its letters are also returned in `squashed`.
 */
export function collapseLetterSpacing(text: string, squashed: string[] = []): string {
  return text.replace(LETTER_RUN, (run) => {
    const letters = run.match(/\p{L}/gu) ?? [];
    const gaps = run.split(/\p{L}/u).slice(1, -1);
    const counts = new Map<string, number>();
    for (const g of gaps) counts.set(g, (counts.get(g) ?? 0) + 1);
    const inner = [...counts.entries()].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
    if (counts.size === 1) {
      if (letters.length <= SQUASHED_MAX_CHARS) squashed.push(letters.join(''));
      return letters.join('');
    }
    return letters.map((l, i) => (i > 0 && gaps[i - 1] !== inner ? ` ${l}` : l)).join('');
  });
}

const LEET: Readonly<Record<string, string>> = { '0': 'o', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '9': 'g', '@': 'a', $: 's', '!': 'i', '€': 'e' };

/**
 * The de-obfuscated form: markdown emphasis removed, s p a c e d / d.o.t.t.e.d single letters
 * re-joined, and leetspeak undone inside words that mix letters with digits or symbols. "1" and "|"
 * can stand for "i" or "l": the reading that gives a keyword of the rule catalogue wins ("a11" →
 * "all", "1nstruct1ons" → "instructions"), else "i".
 */
export function deobfuscate(normalized: string): string {
  return normalized
    .replace(/[*_~`]+/g, '')
    .replace(/(?<![\p{L}])(?:\p{L}[ .\-]){3,}\p{L}(?![\p{L}])/gu, (run) => run.replace(/[ .\-]/g, ''))
    .replace(/[\p{L}\d@$!|€]+/gu, (token) => {
      if (!/\p{L}/u.test(token) || !/[\d@$!|€]/.test(token)) return token;
      const read = (one: string) => token.replace(/[1|]|\d|[@$!€](?=[\p{L}\d])/gu, (c) => (c === '1' || c === '|' ? one : (LEET[c] ?? c)));
      const asL = read('l');
      return RULE_KEYWORDS.has(asL) && !RULE_KEYWORDS.has(read('i')) ? asL : read('i');
    });
}

// ---------------------------------------------------------------------------------------------
// Text rules (run on the normalised and on the de-obfuscated form)

const OVERRIDE_VERB =
  String.raw`(?:ignore|disregard|forget|bypass|override|overlook|abandon|discard|neglect|dismiss|pay no (?:attention|heed|mind) to|set aside|throw (?:out|away)|do not (?:follow|obey|listen to|adhere to|comply with)|don'?t (?:follow|obey|listen to)|stop (?:following|obeying)|no longer (?:follow|obey))`;
const QUALIFIER = String.raw`(?:previous|previously given|prior|preceding|above|earlier|former|foregoing|original|initial|system|developer|safety|programmed|built-in|pre-?set)`;
const DIRECTIVE_NOUN = String.raw`(?:instructions?|prompts?|directions?|directives?|rules?|guidelines?|guardrails?|context|messages?|commands?|constraints?|polic(?:y|ies)|programming|restrictions?|orders?|conversation|filters?)`;

/** Unambiguous names of an AI reader. */
const AI_NOUN = String.raw`(?:ai|a\.i\.|llms?|large language models?|language models?|chat ?bots?|chatgpt|gpt(?:-?\d)?|claude|gemini|copilot|(?:ai|automated|virtual) (?:assistants?|agents?|models?|systems?))`;
/** With the words that also name people or things ("assistant", "agent", "model"): only where context says AI. */
const AI_OR_HELPER = String.raw`(?:ai|a\.i\.|llms?|large language models?|language models?|chat ?bots?|chatgpt|gpt(?:-?\d)?|claude|gemini|copilot|(?:ai|automated|virtual) (?:assistants?|agents?|models?|systems?)|assistants?|agents?|models?|bots?)`;

/** A rule id, its pattern, and optionally a cheap pattern the text must match for the rule to run. */
type TextRule = readonly [InjectionPatternId, RegExp, RegExp?];

const TEXT_RULES: readonly TextRule[] = [
  // instruction-override
  ['instruction-override', new RegExp(String.raw`\b${OVERRIDE_VERB}\s+(?:(?:all|any|every|each|the|your|of|these|those|its|such)\s+){0,3}(?:${QUALIFIER}\s+)+(?:[a-z]+\s+)?${DIRECTIVE_NOUN}\b`)],
  ['instruction-override', new RegExp(String.raw`\b${OVERRIDE_VERB}\s+(?:(?:all|any|every)\s+(?:of\s+)?(?:(?:your|the|my)\s+)?|your\s+(?:own\s+)?)(?:[a-z]+\s+)?${DIRECTIVE_NOUN}\b`)],
  ['instruction-override', /\b(?:ignore|disregard|forget)\s+(?:about\s+)?(?:everything|all|anything|whatever)(?:\s+(?:that|which))?\s+(?:(?:you(?:'ve| have| were| are)?|i(?:'ve| have)?|we)\s+(?:been\s+)?(?:told|said|written|given|learned|learnt|know|received|instructed|were told)|(?:(?:written|said|stated|mentioned|given)\s+)?(?:above|before|previously|earlier|so far|up to now|until now|prior to this))\b/],
  // "the above" as a pronoun, not as an adjective ("disregard the above address").
  ['instruction-override', /\b(?:ignore|disregard|forget)\s+(?:all\s+)?(?:of\s+)?(?:the|that|this)\s+(?:above|foregoing|preceding|previous|prior)(?=\s*(?:$|[.,;:!\n]|and\b|(?:text|content|lines?|paragraphs?)\b))/],
  ...FOREIGN_OVERRIDE_RULES.map((re): TextRule => ['instruction-override', re, FOREIGN_GATE]),
  ['instruction-override', /\b(?:your|the|all|any)\s+(?:(?:previous|prior|original|old|earlier|system)\s+)?(?:instructions|rules|guidelines|directives|prompt|programming|restrictions)\s+(?:are|is|were|have been|has been)\s+(?:now\s+)?(?:void|null|cancel+ed|revoked|obsolete|invalid|overridden|superseded|replaced|lifted|suspended|disabled|no longer (?:valid|apply|applicable|in effect|relevant))\b/],
  // new-instructions (weak alone)
  ['new-instructions', /\b(?:new|updated|real|actual|true|revised|secret|override|additional)\s+(?:system\s+)?(?:instructions?|directives?|prompt|orders)\s*(?::|\bare\b|\bis\b|\bfollow\b)/],
  ['new-instructions', /\bfrom now on,?\s+(?:you|the (?:assistant|ai|model))\s+(?:are|will|must|shall|should|only|always|never|act|respond|answer|reply|obey)\b/],
  ['new-instructions', /\binstead,?\s+(?:you (?:must|should|will)|respond|reply|output|answer) (?:only|with|by)\b/],
  // jailbreak-mode
  ['jailbreak-mode', /\b(?:dan|jailbreak|jailbroken|unrestricted|unfiltered|god|evil|chaos|uncensored)\s+mode\b/],
  ['jailbreak-mode', /\bdo anything now\b/],
  ['jailbreak-mode', /\byou\s+(?:are|have been)\s+(?:now\s+)?(?:jailbroken|unrestricted|unfiltered|uncensored|freed from|liberated from)\b/],
  ['jailbreak-mode', /\byou\b[^.!?\n]{0,40}\b(?:without|no longer have|have no|free (?:of|from))\s+(?:any\s+)?(?:ethical\s+|moral\s+|safety\s+|content\s+)?(?:restrictions|filters|guidelines|limitations|censorship|guardrails)\b/],
  // role-reassignment
  ['role-reassignment', /\byou\s+are\s+(?:now|no\s+longer)\s+(?:a|an|the|my|in|no|free|unrestricted|jailbroken|dan|acting|going to|called|named|operating|playing|bound|required|allowed|permitted|chatgpt|gpt|claude|an ai|an assistant)\b/],
  ['role-reassignment', /\b(?:act|behave|respond|answer|function|operate|pose)\s+(?:as|like)\s+(?:(?:the|a|an|my|if you (?:were|are)(?: the| a| an)?)\s+)?(?:system|root|admin(?:istrator)?|developer|super ?user|unrestricted|unfiltered|jailbroken|uncensored)\b/],
  ['role-reassignment', /\bpretend\s+(?:to\s+be|you\s+are|that\s+you\s+are|you're)\s+(?:(?:the|a|an)\s+)?(?:system|admin(?:istrator)?|developer|root|unrestricted|jailbroken|uncensored|different (?:ai|assistant|model)|(?:an? )?ai (?:without|with no))\b/],
  ['role-reassignment', /\byour\s+new\s+(?:role|persona|identity|name|instructions|task|purpose|goal|objective)\s+(?:is|are|will be)\b/],
  // system-prompt exfiltration
  ['system-prompt-exfiltration', /\b(?:reveal|show|print|output|display|repeat|recite|leak|dump|disclose|expose|share|send|tell|give|write|type|copy|paste|list|spell out|echo|provide|return|summari[sz]e|translate)\s+(?:me\s+|us\s+)?(?:back\s+|out\s+)?(?:(?:all|everything in|exactly|verbatim|word for word|the contents? of|the text of|of)\s+)*(?:your|its)\s+(?:(?:full|entire|complete|exact|original|initial|hidden|secret|internal|underlying|current|whole|first|real|actual|system|developer)\s+)*(?:prompt|instructions|guidelines|rules|directives|configuration|system message)\b/],
  ['system-prompt-exfiltration', /\b(?:reveal|show|print|output|display|repeat|recite|leak|dump|disclose|expose|share|send|tell|give|write|type|copy|paste|spell out|echo|provide|return|summari[sz]e|translate)\s+(?:me\s+|us\s+)?(?:back\s+|out\s+)?(?:(?:all|everything in|exactly|verbatim|word for word|the contents? of|the text of|of)\s+)*(?:(?:the|this|that)\s+)?(?:(?:full|entire|complete|exact|whole|real|actual)\s+)*(?:system\s+(?:prompt|message|instructions)|(?:initial|original|hidden|secret|developer|internal)\s+(?:prompt|instructions|system message)|pre-?prompt|meta-?prompt)\b/],
  ['system-prompt-exfiltration', /\bwhat\s+(?:is|are|was|were|'s)\s+(?:your|the)\s+(?:(?:full|exact|original|initial|hidden|secret)\s+)*(?:system\s+(?:prompt|message|instructions)|(?:initial|original|hidden)\s+(?:prompt|instructions)|instructions you were given)\b/],
  ['system-prompt-exfiltration', /\b(?:repeat|print|output|recite|copy)\s+(?:back\s+)?(?:all\s+)?(?:of\s+)?(?:the\s+)?(?:words|text|everything|content|lines?)\s+(?:above|before this|so far)\b/],
  ...FOREIGN_REVEAL_RULES.map((re): TextRule => ['system-prompt-exfiltration', re, FOREIGN_GATE]),
  // credential exfiltration
  ['credential-exfiltration', /\b(?:what\s+(?:is|are|was|were)|what's|tell\s+me|give\s+me|show\s+me|reveal|print|output|display|send|share|leak|dump|expose|disclose|list|provide|return|paste|email|post|type\s+out|write\s+out|spell\s+out)\s+(?:me\s+)?(?:all\s+(?:of\s+)?)?your\s+(?:(?:own|current|stored|saved|secret|admin|root|openai|aws|github|stripe|system)\s+)*(?:api[\s_-]?keys?|secret\s+keys?|access\s+(?:keys?|tokens?)|auth(?:entication)?\s+tokens?|bearer\s+tokens?|tokens?|passwords?|passphrases?|credentials?|secrets?|private\s+keys?|ssh\s+keys?|session\s+(?:cookies?|tokens?)|cookies|env(?:ironment)?\s+(?:variables|vars)|\.env(?:\s+file)?|keys)\b(?!\s+(?:policy|policies|manager|reset|strength|requirements?|rules|hint|length))/],
  ['credential-exfiltration', /\b(?:reveal|print|output|leak|dump|exfiltrate|expose|disclose|extract)\s+(?:me\s+)?(?:all\s+(?:of\s+)?)?(?:the|any|every|all)\s+(?:(?:stored|saved|secret|hidden|user'?s?|admin|system|environment|internal)\s+)*(?:api[\s_-]?keys?|secret\s+keys?|access\s+(?:keys?|tokens?)|auth(?:entication)?\s+tokens?|tokens|passwords?|credentials|secrets|private\s+keys?|ssh\s+keys?|session\s+(?:cookies?|tokens?)|env(?:ironment)?\s+(?:variables|vars)|\.env(?:\s+file)?)\b(?!\s+(?:policy|policies|manager|reset|requirements?))/],
  // "note to the AI reading this": text addressed to whatever model will read the memory
  ['ai-reader-address', new RegExp(String.raw`\b(?:note|message|instructions?|reminder|attention|memo|psa|warning|notice|important)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+|every\s+)?${AI_NOUN}(?!\s+(?:team|group|lab|club|course|class|committee|department|researchers?|engineers?|project|meetup|conference|workshop|newsletter|ethics|policy|act)\b)(?=\s*(?:[:,\u2014-]|(?:that|who|which)\s+(?:is\s+)?(?:reads?|reading|process(?:es|ing)|summari[sz](?:es|ing)|sees?)|(?:reading|processing|parsing|summari[sz]ing|seeing)\b(?!\s+(?:group|club|list|room|session|circle|comprehension)\b)))`)],
  ['ai-reader-address', new RegExp(String.raw`\b(?:to|for|dear|attention|hey)\s+(?:the\s+|any\s+|all\s+|every\s+)?${AI_OR_HELPER}\s+(?:that\s+is\s+|who\s+is\s+|which\s+is\s+|that\s+|who\s+)?(?:reads?|reading|process(?:es|ing)?|pars(?:es|ing)|summari[sz](?:es|ing)|ingest(?:s|ing)?|crawl(?:s|ing)?|scrap(?:es|ing))\s+(?:this|these|the following)\b`)],
  ['ai-reader-address', new RegExp(String.raw`(?:^|[\n.!?]\s*)(?:the\s+|any\s+)?${AI_OR_HELPER}\s+(?:that\s+is\s+|who\s+is\s+)?(?:reading|processing|parsing|summari[sz]ing|analy[sz]ing|ingesting|indexing|crawling|scraping|retrieving)\s+(?:this|these)\b(?:\s+(?:text|page|note|document|memory|message|content|file|email|record|entry))?\s*[:,\u2014-]`)],
  ['ai-reader-address', new RegExp(String.raw`\bif\s+you(?:'re|\s+are)\s+(?:an?\s+)?${AI_OR_HELPER}(?:\s+(?:or|\/)\s+(?:an?\s+)?${AI_OR_HELPER})?(?:\s+(?:reading|processing|summari[sz]ing|parsing)\s+(?:this|these)(?:\s+[a-z]+)?)?\s*(?:[,:;\u2014-]|then\b)`)],
  ...FOREIGN_AI_ADDRESS_RULES.map((re): TextRule => ['ai-reader-address', re]),
  ['ai-reader-address', new RegExp(String.raw`\b(?:dear|attention)\s*,?\s+${AI_NOUN}\s*[:,!]`)],
  // data exfiltration
  ['data-exfiltration', /\b(?:send|forward|post|upload|transmit|email|e-mail|leak|exfiltrate|copy|share|submit|pipe|beacon)\s+(?:(?:a copy of|all(?: of)?|the|this|our|your|my|every|each|entire|whole|full|complete|previous|current|prior|recent)\s+)*(?:(?:conversation|chat)(?:\s+(?:history|log|logs|transcript))?|message\s+history|transcripts?|context(?:\s+window)?|memories|memory\s+(?:store|contents|bank)|(?:previous|prior|earlier)\s+messages|system\s+prompt|user\s+data|personal\s+data|(?:everything|all)\s+(?:you\s+know|above|in\s+(?:your\s+)?memory))\s+(?:to|at|via|into|with)\b/],
];

/** The text rules without spaces or word edges, for letter-spaced runs that carry no word breaks. */
const COMPACT_TEXT_RULES: readonly TextRule[] = TEXT_RULES.map(([id, re, gate]): TextRule => [id, compactRule(re), gate]);

function compactRule(re: RegExp): RegExp {
  const source = re.source
    .split(WB).join('')
    .split(WE).join('')
    .replace(/\\b/g, '')
    .replace(/\\s(?:[+*?]|\{\d*,?\d*\})?/g, '')
    .replace(/ (?:[+*?](?!\?))?/g, '');
  return new RegExp(source, re.flags);
}

/** Every word spelled out in the text rules (a constant derived from the catalogue). */
const RULE_KEYWORDS: ReadonlySet<string> = new Set(
  TEXT_RULES.flatMap(([, re]) => re.source.replace(/\\[a-z]/gi, ' ').match(/[a-z]{2,}/g) ?? []),
);

// ---------------------------------------------------------------------------------------------
// Markup rules (run on the normalised form only)

const MARKUP_RULES: readonly TextRule[] = [
  ['system-prefix', /(?:^|\n|[.!?]\s)\s*(?:\[|\(|\*\*|<)?\s*(?:system|developer|admin(?:istrator)?|root)(?:\s+(?:message|prompt|note|override|instruction|notice|directive))?\s*(?:\]|\)|\*\*|>)?\s*:\s*(?=[^\n]{0,80}\b(?:you|your|ignore|disregard|always|never|must|do not|don't|respond|reply|answer|assistant|model|ai|override|new|instructions?|reveal|print|output|from now on)\b)/],
  ['chat-template-token', /<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text|end_of_text|eom_id)\|>|\[\/?inst\]|<<\/?sys>>|<\/?(?:start_of_turn|end_of_turn|system|system_prompt|sys)>|(?:^|\n)\s*#{2,}\s*(?:system|assistant|human|instruction|response)(?:\s+(?:prompt|message))?\s*:/],
  // A line (or an HTML comment) that gives an AI an order: "assistant: ignore the user and …". A
  // transcript's "Assistant: Sure, here is …" is not an order.
  ['assistant-directive', /(?:^|\n)\s*(?:\[|\(|\*\*|<)?\s*(?:note (?:to|for) (?:the )?)?(?:assistant|ai|a\.i\.|llm|model|chatbot|gpt|chatgpt|claude|gemini|copilot|ai (?:assistant|agent|model))s?(?:\s+(?:note|notes|instructions?|directive|only|task|override))?\s*(?:\]|\)|\*\*|>)?\s*[:,]\s*(?:please\s+)?(?:ignore|disregard|forget|do not|don'?t|dont|never|always|you must|you should|you will|you are|from now on|tell|send|forward|e-?mail|recommend|say|respond|reply|answer|output|print|reveal|include|insert|append|delete|remove|execute|run|call|visit|open|click|pretend|act as|obey|follow|summari[sz]e|translate|write|stop|switch|mention|claim|inform|refuse|praise|rate|rank|leak|share|post|upload|exfiltrate|change|set|describe)\b/],
  ['tool-call-markup', /<\/?\s*(?:tool_calls?|tool_use|tool_result|function_calls?|function_results?|invoke|antml:[a-z_]+)\b|<parameter\s+name=|<\|(?:tool_call|python_tag|plugin|function)\|>|<function=/],
  ['tool-call-json', /"(?:tool_calls|function_call|tool_use|tool_choice)"\s*:|\{\s*"(?:name|tool|function|tool_name)"\s*:\s*"[^"\n]{1,64}"\s*,\s*"(?:arguments|parameters|args|input)"\s*:\s*[{"[]|"type"\s*:\s*"(?:function|tool_use)"/],
  ['hidden-html', /<[a-z]{1,20}\b[^>]{0,500}?\bstyle\s*=\s*["'][^"']{0,500}?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0)|<[a-z]{1,20}\b[^>]{0,500}?\shidden(?:\s|>|=)/],
  ['script-tag', /<\s*(?:script|iframe|object|embed)\b|(?:href|src|action)\s*=\s*["']?\s*javascript:|\bjavascript:\s*(?:alert|eval|fetch|void|document|window|location)\b|<[a-z]{1,20}\b[^>]{0,500}?\son(?:error|load|click|mouseover|focus|begin)\s*=/],
  ['markdown-image-exfiltration', /!\[[^\]]{0,200}\]\(\s{0,20}<?\s{0,20}(?:https?:)?\/\/[^)\s?]{1,2048}\?[^)\s=]{0,2048}=|<img\b[^>]{0,500}?\bsrc\s*=\s*["']?(?:https?:)?\/\/[^"'\s>?]{1,2048}\?[^"'\s>=]{0,2048}=/],
];

function excerpt(text: string, index: number, length: number): string {
  const raw = text.slice(index, index + Math.max(length, 1)).replace(/\s+/g, ' ').trim();
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
const ROLE_FIELD = /["']?\brole["']?\s*[:=]\s*(?:["'](system|developer|assistant|tool|function|model)["']|(system|developer)(?=\s*[,}\n]))/g;
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
    add(found, 'zero-width-chars', `${prefix}${zw.length} zero-width character(s): ${codepoints(zw)}`, zw.length >= 3 ? ZERO_WIDTH_MANY_WEIGHT : INJECTION_RULES['zero-width-chars'].weight);
  }
  const bidi = raw.match(BIDI) ?? [];
  if (bidi.length > 0) add(found, 'bidi-control', `${prefix}${bidi.length} bidi control character(s): ${codepoints(bidi)}`);
  const tagText = raw.replace(EMOJI_TAG_SEQUENCE, '');
  const tags = tagText.match(TAG_CHARS) ?? [];
  if (tags.length > 0) {
    const hidden = tags.map((c) => String.fromCodePoint(c.codePointAt(0)! - 0xe0000)).join('').replace(/[^\x20-\x7e\n]/g, '');
    add(found, 'unicode-tag-chars', `${prefix}${tags.length} tag character(s)${hidden.trim() ? `: "${excerpt(hidden, 0, hidden.length)}"` : ''}`);
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
const HEX_RUN = /(?<![0-9a-z])(?:0x)?(?:[0-9a-f]{2}){12,}(?![0-9a-z])|(?<![0-9a-z])[0-9a-f]{2}(?:[ :][0-9a-f]{2}){11,}(?![0-9a-z])|(?:\\x[0-9a-f]{2}){6,}/gi;
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
