/** The injection screen's text rules, run on the normalised and on the de-obfuscated form (and compacted for letter-spaced runs). */
import { FOREIGN_AI_ADDRESS_RULES, FOREIGN_GATE, FOREIGN_OVERRIDE_RULES, FOREIGN_REVEAL_RULES, WB, WE } from './injection-lexicon.js';
import type { InjectionPatternId } from './injection-rules.js';

const OVERRIDE_VERB = String.raw`(?:ignore|disregard|forget|bypass|override|overlook|abandon|discard|neglect|dismiss|pay no (?:attention|heed|mind) to|set aside|throw (?:out|away)|do not (?:follow|obey|listen to|adhere to|comply with)|don'?t (?:follow|obey|listen to)|stop (?:following|obeying)|no longer (?:follow|obey))`;
const QUALIFIER = String.raw`(?:previous|previously given|prior|preceding|above|earlier|former|foregoing|original|initial|system|developer|safety|programmed|built-in|pre-?set)`;
const DIRECTIVE_NOUN = String.raw`(?:instructions?|prompts?|directions?|directives?|rules?|guidelines?|guardrails?|context|messages?|commands?|constraints?|polic(?:y|ies)|programming|restrictions?|orders?|conversation|filters?)`;

/** Unambiguous names of an AI reader. */
const AI_NOUN = String.raw`(?:ai|a\.i\.|llms?|large language models?|language models?|chat ?bots?|chatgpt|gpt(?:-?\d)?|claude|gemini|copilot|(?:ai|automated|virtual) (?:assistants?|agents?|models?|systems?))`;
/** With the words that also name people or things ("assistant", "agent", "model"): only where context says AI. */
const AI_OR_HELPER = String.raw`(?:ai|a\.i\.|llms?|large language models?|language models?|chat ?bots?|chatgpt|gpt(?:-?\d)?|claude|gemini|copilot|(?:ai|automated|virtual) (?:assistants?|agents?|models?|systems?)|assistants?|agents?|models?|bots?)`;

/** A rule id, its pattern, and optionally a cheap pattern the text must match for the rule to run. */
export type TextRule = readonly [InjectionPatternId, RegExp, RegExp?];

export const TEXT_RULES: readonly TextRule[] = [
  // instruction-override
  [
    'instruction-override',
    new RegExp(
      String.raw`\b${OVERRIDE_VERB}\s+(?:(?:all|any|every|each|the|your|of|these|those|its|such)\s+){0,3}(?:${QUALIFIER}\s+)+(?:[a-z]+\s+)?${DIRECTIVE_NOUN}\b`,
    ),
  ],
  [
    'instruction-override',
    new RegExp(
      String.raw`\b${OVERRIDE_VERB}\s+(?:(?:all|any|every)\s+(?:of\s+)?(?:(?:your|the|my)\s+)?|your\s+(?:own\s+)?)(?:[a-z]+\s+)?${DIRECTIVE_NOUN}\b`,
    ),
  ],
  [
    'instruction-override',
    /\b(?:ignore|disregard|forget)\s+(?:about\s+)?(?:everything|all|anything|whatever)(?:\s+(?:that|which))?\s+(?:(?:you(?:'ve| have| were| are)?|i(?:'ve| have)?|we)\s+(?:been\s+)?(?:told|said|written|given|learned|learnt|know|received|instructed|were told)|(?:(?:written|said|stated|mentioned|given)\s+)?(?:above|before|previously|earlier|so far|up to now|until now|prior to this))\b/,
  ],
  // "the above" as a pronoun, not as an adjective ("disregard the above address").
  [
    'instruction-override',
    /\b(?:ignore|disregard|forget)\s+(?:all\s+)?(?:of\s+)?(?:the|that|this)\s+(?:above|foregoing|preceding|previous|prior)(?=\s*(?:$|[.,;:!\n]|and\b|(?:text|content|lines?|paragraphs?)\b))/,
  ],
  ...FOREIGN_OVERRIDE_RULES.map((re): TextRule => ['instruction-override', re, FOREIGN_GATE]),
  [
    'instruction-override',
    /\b(?:your|the|all|any)\s+(?:(?:previous|prior|original|old|earlier|system)\s+)?(?:instructions|rules|guidelines|directives|prompt|programming|restrictions)\s+(?:are|is|were|have been|has been)\s+(?:now\s+)?(?:void|null|cancel+ed|revoked|obsolete|invalid|overridden|superseded|replaced|lifted|suspended|disabled|no longer (?:valid|apply|applicable|in effect|relevant))\b/,
  ],
  // new-instructions (weak alone)
  [
    'new-instructions',
    /\b(?:new|updated|real|actual|true|revised|secret|override|additional)\s+(?:system\s+)?(?:instructions?|directives?|prompt|orders)\s*(?::|\bare\b|\bis\b|\bfollow\b)/,
  ],
  [
    'new-instructions',
    /\bfrom now on,?\s+(?:you|the (?:assistant|ai|model))\s+(?:are|will|must|shall|should|only|always|never|act|respond|answer|reply|obey)\b/,
  ],
  ['new-instructions', /\binstead,?\s+(?:you (?:must|should|will)|respond|reply|output|answer) (?:only|with|by)\b/],
  // jailbreak-mode
  ['jailbreak-mode', /\b(?:dan|jailbreak|jailbroken|unrestricted|unfiltered|god|evil|chaos|uncensored)\s+mode\b/],
  ['jailbreak-mode', /\bdo anything now\b/],
  [
    'jailbreak-mode',
    /\byou\s+(?:are|have been)\s+(?:now\s+)?(?:jailbroken|unrestricted|unfiltered|uncensored|freed from|liberated from)\b/,
  ],
  [
    'jailbreak-mode',
    /\byou\b[^.!?\n]{0,40}\b(?:without|no longer have|have no|free (?:of|from))\s+(?:any\s+)?(?:ethical\s+|moral\s+|safety\s+|content\s+)?(?:restrictions|filters|guidelines|limitations|censorship|guardrails)\b/,
  ],
  // role-reassignment
  [
    'role-reassignment',
    /\byou\s+are\s+(?:now|no\s+longer)\s+(?:a|an|the|my|in|no|free|unrestricted|jailbroken|dan|acting|going to|called|named|operating|playing|bound|required|allowed|permitted|chatgpt|gpt|claude|an ai|an assistant)\b/,
  ],
  [
    'role-reassignment',
    /\b(?:act|behave|respond|answer|function|operate|pose)\s+(?:as|like)\s+(?:(?:the|a|an|my|if you (?:were|are)(?: the| a| an)?)\s+)?(?:system|root|admin(?:istrator)?|developer|super ?user|unrestricted|unfiltered|jailbroken|uncensored)\b/,
  ],
  [
    'role-reassignment',
    /\bpretend\s+(?:to\s+be|you\s+are|that\s+you\s+are|you're)\s+(?:(?:the|a|an)\s+)?(?:system|admin(?:istrator)?|developer|root|unrestricted|jailbroken|uncensored|different (?:ai|assistant|model)|(?:an? )?ai (?:without|with no))\b/,
  ],
  ['role-reassignment', /\byour\s+new\s+(?:role|persona|identity|name|instructions|task|purpose|goal|objective)\s+(?:is|are|will be)\b/],
  // system-prompt exfiltration
  [
    'system-prompt-exfiltration',
    /\b(?:reveal|show|print|output|display|repeat|recite|leak|dump|disclose|expose|share|send|tell|give|write|type|copy|paste|list|spell out|echo|provide|return|summari[sz]e|translate)\s+(?:me\s+|us\s+)?(?:back\s+|out\s+)?(?:(?:all|everything in|exactly|verbatim|word for word|the contents? of|the text of|of)\s+)*(?:your|its)\s+(?:(?:full|entire|complete|exact|original|initial|hidden|secret|internal|underlying|current|whole|first|real|actual|system|developer)\s+)*(?:prompt|instructions|guidelines|rules|directives|configuration|system message)\b/,
  ],
  [
    'system-prompt-exfiltration',
    /\b(?:reveal|show|print|output|display|repeat|recite|leak|dump|disclose|expose|share|send|tell|give|write|type|copy|paste|spell out|echo|provide|return|summari[sz]e|translate)\s+(?:me\s+|us\s+)?(?:back\s+|out\s+)?(?:(?:all|everything in|exactly|verbatim|word for word|the contents? of|the text of|of)\s+)*(?:(?:the|this|that)\s+)?(?:(?:full|entire|complete|exact|whole|real|actual)\s+)*(?:system\s+(?:prompt|message|instructions)|(?:initial|original|hidden|secret|developer|internal)\s+(?:prompt|instructions|system message)|pre-?prompt|meta-?prompt)\b/,
  ],
  [
    'system-prompt-exfiltration',
    /\bwhat\s+(?:is|are|was|were|'s)\s+(?:your|the)\s+(?:(?:full|exact|original|initial|hidden|secret)\s+)*(?:system\s+(?:prompt|message|instructions)|(?:initial|original|hidden)\s+(?:prompt|instructions)|instructions you were given)\b/,
  ],
  [
    'system-prompt-exfiltration',
    /\b(?:repeat|print|output|recite|copy)\s+(?:back\s+)?(?:all\s+)?(?:of\s+)?(?:the\s+)?(?:words|text|everything|content|lines?)\s+(?:above|before this|so far)\b/,
  ],
  ...FOREIGN_REVEAL_RULES.map((re): TextRule => ['system-prompt-exfiltration', re, FOREIGN_GATE]),
  // credential exfiltration
  [
    'credential-exfiltration',
    /\b(?:what\s+(?:is|are|was|were)|what's|tell\s+me|give\s+me|show\s+me|reveal|print|output|display|send|share|leak|dump|expose|disclose|list|provide|return|paste|email|post|type\s+out|write\s+out|spell\s+out)\s+(?:me\s+)?(?:all\s+(?:of\s+)?)?your\s+(?:(?:own|current|stored|saved|secret|admin|root|openai|aws|github|stripe|system)\s+)*(?:api[\s_-]?keys?|secret\s+keys?|access\s+(?:keys?|tokens?)|auth(?:entication)?\s+tokens?|bearer\s+tokens?|tokens?|passwords?|passphrases?|credentials?|secrets?|private\s+keys?|ssh\s+keys?|session\s+(?:cookies?|tokens?)|cookies|env(?:ironment)?\s+(?:variables|vars)|\.env(?:\s+file)?|keys)\b(?!\s+(?:policy|policies|manager|reset|strength|requirements?|rules|hint|length))/,
  ],
  [
    'credential-exfiltration',
    /\b(?:reveal|print|output|leak|dump|exfiltrate|expose|disclose|extract)\s+(?:me\s+)?(?:all\s+(?:of\s+)?)?(?:the|any|every|all)\s+(?:(?:stored|saved|secret|hidden|user'?s?|admin|system|environment|internal)\s+)*(?:api[\s_-]?keys?|secret\s+keys?|access\s+(?:keys?|tokens?)|auth(?:entication)?\s+tokens?|tokens|passwords?|credentials|secrets|private\s+keys?|ssh\s+keys?|session\s+(?:cookies?|tokens?)|env(?:ironment)?\s+(?:variables|vars)|\.env(?:\s+file)?)\b(?!\s+(?:policy|policies|manager|reset|requirements?))/,
  ],
  // "note to the AI reading this": text addressed to whatever model will read the memory
  [
    'ai-reader-address',
    new RegExp(
      String.raw`\b(?:note|message|instructions?|reminder|attention|memo|psa|warning|notice|important)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+|every\s+)?${AI_NOUN}(?!\s+(?:team|group|lab|club|course|class|committee|department|researchers?|engineers?|project|meetup|conference|workshop|newsletter|ethics|policy|act)\b)(?=\s*(?:[:,\u2014-]|(?:that|who|which)\s+(?:is\s+)?(?:reads?|reading|process(?:es|ing)|summari[sz](?:es|ing)|sees?)|(?:reading|processing|parsing|summari[sz]ing|seeing)\b(?!\s+(?:group|club|list|room|session|circle|comprehension)\b)))`,
    ),
  ],
  [
    'ai-reader-address',
    new RegExp(
      String.raw`\b(?:to|for|dear|attention|hey)\s+(?:the\s+|any\s+|all\s+|every\s+)?${AI_OR_HELPER}\s+(?:that\s+is\s+|who\s+is\s+|which\s+is\s+|that\s+|who\s+)?(?:reads?|reading|process(?:es|ing)?|pars(?:es|ing)|summari[sz](?:es|ing)|ingest(?:s|ing)?|crawl(?:s|ing)?|scrap(?:es|ing))\s+(?:this|these|the following)\b`,
    ),
  ],
  [
    'ai-reader-address',
    new RegExp(
      String.raw`(?:^|[\n.!?]\s*)(?:the\s+|any\s+)?${AI_OR_HELPER}\s+(?:that\s+is\s+|who\s+is\s+)?(?:reading|processing|parsing|summari[sz]ing|analy[sz]ing|ingesting|indexing|crawling|scraping|retrieving)\s+(?:this|these)\b(?:\s+(?:text|page|note|document|memory|message|content|file|email|record|entry))?\s*[:,\u2014-]`,
    ),
  ],
  [
    'ai-reader-address',
    new RegExp(
      String.raw`\bif\s+you(?:'re|\s+are)\s+(?:an?\s+)?${AI_OR_HELPER}(?:\s+(?:or|\/)\s+(?:an?\s+)?${AI_OR_HELPER})?(?:\s+(?:reading|processing|summari[sz]ing|parsing)\s+(?:this|these)(?:\s+[a-z]+)?)?\s*(?:[,:;\u2014-]|then\b)`,
    ),
  ],
  ...FOREIGN_AI_ADDRESS_RULES.map((re): TextRule => ['ai-reader-address', re]),
  ['ai-reader-address', new RegExp(String.raw`\b(?:dear|attention)\s*,?\s+${AI_NOUN}\s*[:,!]`)],
  // data exfiltration
  [
    'data-exfiltration',
    /\b(?:send|forward|post|upload|transmit|email|e-mail|leak|exfiltrate|copy|share|submit|pipe|beacon)\s+(?:(?:a copy of|all(?: of)?|the|this|our|your|my|every|each|entire|whole|full|complete|previous|current|prior|recent)\s+)*(?:(?:conversation|chat)(?:\s+(?:history|log|logs|transcript))?|message\s+history|transcripts?|context(?:\s+window)?|memories|memory\s+(?:store|contents|bank)|(?:previous|prior|earlier)\s+messages|system\s+prompt|user\s+data|personal\s+data|(?:everything|all)\s+(?:you\s+know|above|in\s+(?:your\s+)?memory))\s+(?:to|at|via|into|with)\b/,
  ],
];

/** The text rules without spaces or word edges, for letter-spaced runs that carry no word breaks. */
export const COMPACT_TEXT_RULES: readonly TextRule[] = TEXT_RULES.map(([id, re, gate]): TextRule => [id, compactRule(re), gate]);

function compactRule(re: RegExp): RegExp {
  const source = re.source
    .split(WB)
    .join('')
    .split(WE)
    .join('')
    .replace(/\\b/g, '')
    .replace(/\\s(?:[+*?]|\{\d*,?\d*\})?/g, '')
    .replace(/ (?:[+*?](?!\?))?/g, '');
  return new RegExp(source, re.flags);
}

/** Every word spelled out in the text rules (a constant derived from the catalogue). */
export const RULE_KEYWORDS: ReadonlySet<string> = new Set(
  TEXT_RULES.flatMap(([, re]) => re.source.replace(/\\[a-z]/gi, ' ').match(/[a-z]{2,}/g) ?? []),
);
