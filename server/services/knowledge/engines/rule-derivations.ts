import webmailDomains from 'email-providers';
import { parse as parseDomain } from 'tldts';
import type { Candidate, DerivationRule, FieldAnnotation, JsonValue } from '../model.js';

/**
 * The rules engine's derivations (`x-knowledge.derive`): a registrable domain from a website or an
 * e-mail address, by the public-suffix list (tldts, private suffixes included so `acme.github.io`
 * stays itself). Refused: IP addresses, localhost and names without a known public suffix, malformed
 * input, non-web schemes, and (for e-mail) webmail providers, whose domain says nothing about the owner.
 *
 * Confidence: 0.95 from a website (an organisation's own site names its domain), 0.75 from an e-mail
 * address (a company address usually does, but people use other employers' and agencies' addresses) —
 * proposed, not committed, under the default thresholds.
 */

export const DERIVATION_CONFIDENCE: Record<DerivationRule, number> = { domain_from_url: 0.95, domain_from_email: 0.75 };

const WEBMAIL = new Set(webmailDomains);

/** The registrable domain of a URL or host name, or null when there is none to trust. */
export function domainFromUrl(input: string): string | null {
  const raw = input.trim();
  if (!raw || raw.length > 2048 || /\s/.test(raw)) return null;
  // A scheme, if any, must be http(s); "acme.io:8080" is a host and port, not a scheme.
  const scheme = /^([a-z][a-z0-9+.-]*):(?!\d)/i.exec(raw)?.[1];
  if (scheme && !/^https?$/i.test(scheme)) return null;
  const parsed = parseDomain(raw, { allowPrivateDomains: true });
  if (parsed.isIp || !parsed.hostname || parsed.hostname === 'localhost') return null;
  if (!parsed.domain || (!parsed.isIcann && !parsed.isPrivate)) return null;
  return parsed.domain.toLowerCase();
}

/** The registrable domain of an e-mail address's host, or null (malformed, IP literal, webmail). */
export function domainFromEmail(input: string): string | null {
  const m = /^[^\s@]{1,64}@([^\s@]{1,253})$/.exec(input.trim());
  if (!m || m[1]!.startsWith('[')) return null;
  const domain = domainFromUrl(m[1]!);
  return domain && !WEBMAIL.has(domain) ? domain : null;
}

const DERIVE: Record<DerivationRule, (input: string) => string | null> = {
  domain_from_url: domainFromUrl,
  domain_from_email: domainFromEmail,
};

function stringsOf(value: JsonValue | undefined): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/**
 * Candidates for every field whose annotation declares a derivation, from the object's current
 * values (plain values by field name). Source fields are tried in the declared order; each distinct
 * derived value is one candidate naming every source field that gave it (`field:<name>`).
 */
export function deriveCandidates(values: Record<string, JsonValue | undefined>, annotations: Record<string, FieldAnnotation>): Candidate[] {
  const out: Candidate[] = [];
  for (const [field, annotation] of Object.entries(annotations)) {
    if (!annotation.derive) continue;
    const { rule, from } = annotation.derive;
    const byValue = new Map<string, Candidate>();
    for (const source of from) {
      for (const input of stringsOf(values[source])) {
        const derived = DERIVE[rule](input);
        if (!derived) continue;
        const seen = byValue.get(derived);
        const ref = `field:${source}`;
        if (seen) {
          if (!seen.sourceRefs.includes(ref)) seen.sourceRefs.push(ref);
        } else {
          byValue.set(derived, {
            field,
            value: derived,
            confidence: DERIVATION_CONFIDENCE[rule],
            strategy: `derive:${rule}`,
            sourceRefs: [ref],
          });
        }
      }
    }
    out.push(...byValue.values());
  }
  return out;
}
