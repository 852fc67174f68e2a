/** The catalogue of injection-screen rule ids, their categories and weights, and the screen's limits. */

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
export const JSON_ROLE_TURN_WEIGHT = 0.45;

/** Weight of `zero-width-chars` when three or more such characters are present. */
export const ZERO_WIDTH_MANY_WEIGHT = 0.55;

/** Characters of one text screened (the rest is not read). */
export const MAX_SCREEN_CHARS = 200_000;
export const MAX_DECODE_DEPTH = 2;
export const EVIDENCE_CHARS = 80;
