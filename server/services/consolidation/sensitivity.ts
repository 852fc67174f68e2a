/**
 * Sensitivity classification of memory content (pure; no I/O, no state).
 *
 * Detected levels:
 *  - high:   secrets (cloud/API tokens, private key blocks, JWTs, high-entropy `key=…` values),
 *            credentials (`password: …`, credentials in connection URLs), payment cards (Luhn-valid
 *            with a known brand prefix and length), government ids (US SSN with invalid ranges
 *            excluded, UK National Insurance number, IBAN with the ISO 13616 mod-97 check).
 *  - medium: e-mail addresses and phone numbers (phone-like spans validated with libphonenumber-js
 *            metadata: international "+…" numbers always, national numbers for `phoneRegions`,
 *            default US and GB).
 *  - low:    nothing of the above.
 *
 * Writer's choice (the rule of the issue: "when the writer gives none, classify; never downgrade a
 * writer's choice"): the writer's level is kept unless detection finds a higher level, in which
 * case the level is raised to the detected one. The result is therefore max(writer, detected),
 * and with no writer level simply the detected level. `reasons` always lists everything detected
 * (also when the writer's level already covers it), so the caller can log why.
 */
import { isValidIBAN } from 'ibantools';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

export const SENSITIVITY_LEVELS = ['low', 'medium', 'high'] as const;
export type SensitivityLevel = (typeof SENSITIVITY_LEVELS)[number];

/** Stable reason codes, `<kind>:<detector>`. */
export type SensitivityReason =
  | 'secret:aws-access-key'
  | 'secret:aws-secret-key'
  | 'secret:github-token'
  | 'secret:slack-token'
  | 'secret:stripe-key'
  | 'secret:google-api-key'
  | 'secret:openai-key'
  | 'secret:platform-api-key'
  | 'secret:private-key'
  | 'secret:jwt'
  | 'secret:generic-high-entropy'
  | 'credential:password'
  | 'credential:connection-string'
  | 'financial:payment-card'
  | 'financial:iban'
  | 'government-id:us-ssn'
  | 'government-id:uk-nino'
  | 'contact:email'
  | 'contact:phone';

export interface SensitivityResult {
  /** Final level: max(writer's choice, detected). */
  level: SensitivityLevel;
  /** Reason codes of every detection, in a stable order, without duplicates. */
  reasons: SensitivityReason[];
  /** What detection alone found (before applying the writer's choice). */
  detectedLevel: SensitivityLevel;
}

export interface SensitivityOptions {
  /** Countries whose national phone formats are recognised (international "+…" always are). */
  phoneRegions?: readonly CountryCode[];
}

const RANK: Record<SensitivityLevel, number> = { low: 0, medium: 1, high: 2 };

/** The higher of two levels. */
export function maxSensitivity(a: SensitivityLevel, b: SensitivityLevel): SensitivityLevel {
  return RANK[a] >= RANK[b] ? a : b;
}

// ---------------------------------------------------------------------------------------------
// Secrets

const TOKEN_PATTERNS: ReadonlyArray<readonly [SensitivityReason, RegExp]> = [
  ['secret:aws-access-key', /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/],
  ['secret:aws-secret-key', /\baws_?secret_?access_?key\b["']?\s*[:=]\s*["']?[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/i],
  ['secret:github-token', /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{50,255})\b/],
  [
    'secret:slack-token',
    /\b(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})|hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]+/,
  ],
  ['secret:stripe-key', /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/],
  ['secret:google-api-key', /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/],
  [
    'secret:openai-key',
    /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300}T3BlbkFJ[A-Za-z0-9_-]{20,300}|\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,300}/,
  ],
  ['secret:platform-api-key', /\btmk_[A-Za-z0-9_-]{22,}\b/],
  ['secret:private-key', /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----/],
];

const JWT = /\beyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{16,4096}/g;

function isJwt(token: string): boolean {
  const [header] = token.split('.');
  if (header === undefined) return false;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
    return typeof decoded === 'object' && decoded !== null && 'alg' in decoded;
  } catch {
    return false;
  }
}

/** Shannon entropy in bits per character. */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  const freq = new Map<string, number>();
  for (const ch of s) freq.set(ch, (freq.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of freq.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

const GENERIC_SECRET =
  /\b(?:api[_-]?key|apikey|api[_-]?secret|secret(?:[_-]?key)?|access[_-]?key|access[_-]?token|auth[_-]?token|bearer|token|client[_-]?secret|private[_-]?key|signing[_-]?key)\b["']?\s*(?:[:=]|is\b)?\s*["']?([A-Za-z0-9_\-/+=.]{16,512})/gi;

/**
 * A generic secret: a key-like label followed by a ≥ 16 character value with ≥ 3.5 bits/char of
 * entropy that mixes at least two of lower case, upper case and digits (so "token: aaaa…" or an
 * English word run does not count).
 */
function hasGenericSecret(text: string): boolean {
  for (const m of text.matchAll(GENERIC_SECRET)) {
    const value = m[1] ?? '';
    const classes = [/[a-z]/, /[A-Z]/, /\d/].filter((r) => r.test(value)).length;
    if (classes >= 2 && shannonEntropy(value) >= 3.5) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Credentials

const PASSWORD = /\b(?:password|passwd|passcode|passphrase|pwd|pin(?: code)?)\b\s*(?:[:=]|\bis\b|\bwas\b)\s*["'`]?(\S+)/gi;
/** Words after "password is" that describe the password rather than being it. */
const PASSWORD_NON_VALUES = new Set([
  'required',
  'wrong',
  'incorrect',
  'expired',
  'expiring',
  'too',
  'not',
  'reset',
  'changed',
  'weak',
  'strong',
  'correct',
  'case',
  'missing',
  'invalid',
  'set',
  'stored',
  'saved',
  'kept',
  'in',
  'on',
  'the',
  'a',
  'an',
  'my',
  'your',
  'his',
  'her',
  'their',
  'our',
  'same',
  'different',
  'long',
  'short',
  'secure',
  'insecure',
  'easy',
  'hard',
  'unknown',
  'forgotten',
  'lost',
  'needed',
  'optional',
  'managed',
  'also',
  'still',
  'now',
  'being',
  'going',
  'very',
  'quite',
  'really',
  'empty',
  'blank',
]);

function hasPassword(text: string): boolean {
  for (const m of text.matchAll(PASSWORD)) {
    const value = (m[1] ?? '').replace(/["'`.,;:!?)]+$/, '');
    if (value.length >= 3 && !PASSWORD_NON_VALUES.has(value.toLowerCase())) return true;
  }
  return false;
}

const CONNECTION_STRING = /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:@/]{1,64}:[^\s@/]{1,128}@[^\s]+/i;

// ---------------------------------------------------------------------------------------------
// Payment cards

/** The Luhn (mod 10) check over a digit string. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Brand prefixes (IIN ranges) and lengths: Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro. */
function knownCardBrand(d: string): boolean {
  const len = d.length;
  const p2 = Number(d.slice(0, 2));
  const p3 = Number(d.slice(0, 3));
  const p4 = Number(d.slice(0, 4));
  const p6 = Number(d.slice(0, 6));
  if (d.startsWith('4')) return len === 13 || len === 16 || len === 19;
  if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) return len === 16;
  if (p2 === 34 || p2 === 37) return len === 15;
  if (p4 === 6011 || p2 === 65 || (p3 >= 644 && p3 <= 649) || (p6 >= 622126 && p6 <= 622925)) return len >= 16 && len <= 19;
  if (p4 >= 3528 && p4 <= 3589) return len >= 16 && len <= 19;
  if ((p3 >= 300 && p3 <= 305) || p2 === 36 || p2 === 38 || p2 === 39 || p4 === 3095) return len >= 14 && len <= 19;
  if (p2 === 62 || p2 === 81) return len >= 16 && len <= 19;
  if (p2 === 50 || (p2 >= 56 && p2 <= 69)) return len >= 16 && len <= 19;
  return false;
}

/** 13–19 digits, optionally grouped by single spaces or hyphens, not part of a longer number. */
const CARD_CANDIDATE = /(?<![\d.,-])\d(?:[ -]?\d){12,18}(?![\d-]|[.,]\d)/g;

/** A payment card number: known brand prefix and length, and Luhn-valid. */
export function isPaymentCard(candidate: string): boolean {
  const digits = candidate.replace(/[ -]/g, '');
  return digits.length >= 13 && digits.length <= 19 && knownCardBrand(digits) && luhnValid(digits);
}

function hasPaymentCard(text: string): boolean {
  for (const m of text.matchAll(CARD_CANDIDATE)) if (isPaymentCard(m[0])) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Government ids

const SSN = /(?<![\d-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d-])/g;
const SSN_BARE = /\b(?:ssn|social security(?: number| no\.?)?)\D{0,12}(\d{3})(\d{2})(\d{4})\b/gi;

/** A structurally valid US SSN: area not 000, 666 or 900–999; group not 00; serial not 0000. */
export function isValidSsn(area: string, group: string, serial: string): boolean {
  const a = Number(area);
  if (a === 0 || a === 666 || a >= 900) return false;
  if (group === '00' || serial === '0000') return false;
  // Numbers published in advertising and never issued.
  if (`${area}${group}${serial}` === '078051120' || `${area}${group}${serial}` === '219099999') return false;
  return true;
}

function hasSsn(text: string): boolean {
  for (const m of text.matchAll(SSN)) if (isValidSsn(m[1] ?? '', m[3] ?? '', m[4] ?? '')) return true;
  for (const m of text.matchAll(SSN_BARE)) if (isValidSsn(m[1] ?? '', m[2] ?? '', m[3] ?? '')) return true;
  return false;
}

const NINO = /\b([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]) ?(\d{2}) ?(\d{2}) ?(\d{2}) ?([A-D])\b/gi;
const NINO_INVALID_PREFIXES = new Set(['BG', 'GB', 'NK', 'KN', 'TN', 'NT', 'ZZ']);

/** A UK National Insurance number (HMRC format; prefixes BG, GB, NK, KN, TN, NT, ZZ are never issued). */
export function isValidNino(value: string): boolean {
  const v = value.replace(/\s+/g, '').toUpperCase();
  const m = /^([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z])\d{6}[A-D]$/.exec(v);
  return m !== null && !NINO_INVALID_PREFIXES.has(m[1] ?? '');
}

function hasNino(text: string): boolean {
  for (const m of text.matchAll(NINO)) if (isValidNino(m[0])) return true;
  return false;
}

const IBAN_CANDIDATE = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/gi;

/** An IBAN: country length and ISO 13616 mod-97 check (via ibantools). Spaces are ignored. */
export function isIban(candidate: string): boolean {
  return isValidIBAN(candidate.replace(/\s+/g, '').toUpperCase());
}

function hasIban(text: string): boolean {
  for (const m of text.matchAll(IBAN_CANDIDATE)) if (isIban(m[0])) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Contact details

const EMAIL =
  /(?<![\w.+:/%-])[A-Za-z0-9](?:[A-Za-z0-9._%+-]{0,62}[A-Za-z0-9])?@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}\b/;

/**
 * Phone-number-like spans (bounded, so scanning is linear); each span with 7–15 digits is then
 * validated with libphonenumber-js metadata: "+…" spans as international numbers, others as
 * national numbers of each configured region. At most the first 100 spans are validated, which
 * bounds the cost on long digit-heavy text.
 */
const PHONE_CANDIDATE = /(?<![\w+])\+?\(?\d[\d \t().\-/]{5,24}\d(?!\w)/g;
const MAX_PHONE_CANDIDATES = 100;

function hasPhone(text: string, regions: readonly CountryCode[]): boolean {
  let seen = 0;
  for (const m of text.matchAll(PHONE_CANDIDATE)) {
    const candidate = m[0];
    const digits = candidate.replace(/\D/g, '').length;
    if (digits < 7 || digits > 15) continue;
    if (++seen > MAX_PHONE_CANDIDATES) return false;
    if (candidate.startsWith('+')) {
      if (parsePhoneNumberFromString(candidate)?.isValid()) return true;
    } else if (regions.some((region) => parsePhoneNumberFromString(candidate, region)?.isValid())) {
      return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------

/** Everything detected in the text, as reason codes in a stable order. */
export function detectSensitiveData(text: string, options: SensitivityOptions = {}): SensitivityReason[] {
  const reasons: SensitivityReason[] = [];
  for (const [reason, re] of TOKEN_PATTERNS) if (re.test(text)) reasons.push(reason);
  if ([...text.matchAll(JWT)].some((m) => isJwt(m[0]))) reasons.push('secret:jwt');
  // The generic detector only reports values no specific detector recognised.
  if (!reasons.some((r) => r.startsWith('secret:')) && hasGenericSecret(text)) reasons.push('secret:generic-high-entropy');
  if (hasPassword(text)) reasons.push('credential:password');
  if (CONNECTION_STRING.test(text)) reasons.push('credential:connection-string');
  if (hasPaymentCard(text)) reasons.push('financial:payment-card');
  if (hasIban(text)) reasons.push('financial:iban');
  if (hasSsn(text)) reasons.push('government-id:us-ssn');
  if (hasNino(text)) reasons.push('government-id:uk-nino');
  if (EMAIL.test(text)) reasons.push('contact:email');
  if (hasPhone(text, options.phoneRegions ?? ['US', 'GB'])) reasons.push('contact:phone');
  return reasons;
}

/** The level a reason implies. */
export function levelOfReason(reason: SensitivityReason): SensitivityLevel {
  return reason.startsWith('contact:') ? 'medium' : 'high';
}

/**
 * Classify a memory's sensitivity. With no writer's choice the detected level is used; with one,
 * the writer's level is kept unless detection is higher (never downgraded). See module comment.
 */
export function classifySensitivity(text: string, writerChoice?: SensitivityLevel, options: SensitivityOptions = {}): SensitivityResult {
  const reasons = detectSensitiveData(text, options);
  const detectedLevel = reasons.reduce<SensitivityLevel>((acc, r) => maxSensitivity(acc, levelOfReason(r)), 'low');
  const level = writerChoice === undefined ? detectedLevel : maxSensitivity(writerChoice, detectedLevel);
  return { level, reasons, detectedLevel };
}
