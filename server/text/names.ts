/** Name primitives both fact extractors normalise with: diacritics folded, and the legal suffixes of organisations. */

/** "São Paulo" → "Sao Paulo": canonical decomposition, combining marks dropped. */
export function stripMarks(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '');
}

/** Words that end an organisation's name without being part of it ("Acme Inc", "Globex Group"); lower case. */
export const LEGAL_SUFFIXES = [
  'inc',
  'ltd',
  'llc',
  'corp',
  'corporation',
  'co',
  'company',
  'gmbh',
  'ag',
  'sa',
  'sas',
  'plc',
  'bv',
  'nv',
  'ab',
  'pty',
  'group',
  'limited',
] as const;

const LEGAL_SUFFIX = new RegExp(String.raw`\s+(?:${LEGAL_SUFFIXES.join('|')})$`);

/** A lower-case, space-separated name without its trailing legal suffix ("acme corp" → "acme"). */
export function withoutLegalSuffix(name: string): string {
  return name.replace(LEGAL_SUFFIX, '');
}
