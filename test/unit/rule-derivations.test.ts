import { describe, expect, it } from 'vitest';
import type { FieldAnnotation } from '../../server/services/knowledge/model.js';
import {
  DERIVATION_CONFIDENCE,
  deriveCandidates,
  domainFromEmail,
  domainFromUrl,
} from '../../server/services/knowledge/engines/rule-derivations.js';

describe('domainFromUrl', () => {
  it.each([
    ['https://www.acme.co.uk/about', 'acme.co.uk'],
    ['http://shop.acme.com:8080/cart?x=1#top', 'acme.com'],
    ['HTTPS://WWW.GLOBEX.COM', 'globex.com'],
    ['acme.io', 'acme.io'],
    ['www.initech.com.au/contact', 'initech.com.au'],
    ['acme.io:8443', 'acme.io'],
    ['https://user:secret@portal.northwind.de/', 'northwind.de'],
    // A private suffix keeps the tenant's own site apart from the host's.
    ['https://falcon-team.github.io/docs', 'falcon-team.github.io'],
  ])('%s → %s', (input, expected) => {
    expect(domainFromUrl(input)).toBe(expected);
  });

  it.each([
    'http://127.0.0.1/admin',
    'https://10.1.2.3',
    'http://[::1]:3000/',
    'localhost',
    'http://localhost:8080',
    'intranet.local',
    'build.internal',
    'ftp://acme.com',
    'mailto:dana@acme.com',
    'javascript:alert(1)',
    'https://',
    'not a url',
    'http://-bad-.com',
    '',
    'co.uk',
  ])('refuses %s', (input) => {
    expect(domainFromUrl(input)).toBeNull();
  });
});

describe('domainFromEmail', () => {
  it.each([
    ['dana@mail.acme.io', 'acme.io'],
    ['Dana.Whitfield@Northwind.co.uk', 'northwind.co.uk'],
    ['ops+alerts@eu.globex.com', 'globex.com'],
  ])('%s → %s', (input, expected) => {
    expect(domainFromEmail(input)).toBe(expected);
  });

  it.each(['dana@gmail.com', 'someone@outlook.com', 'dana@[192.168.1.4]', 'dana@localhost', 'dana', 'a@b@acme.com', '@acme.com', 'dana@'])(
    'refuses %s',
    (input) => {
      expect(domainFromEmail(input)).toBeNull();
    },
  );
});

const annotation = (derive: FieldAnnotation['derive']): FieldAnnotation => ({
  weight: 1,
  cardinality: 'single',
  sensitivity: 'low',
  provenance: ['KG_INFERENCE'],
  commitAt: 0.8,
  proposeAt: 0.5,
  derive,
  identity: false,
});

describe('deriveCandidates', () => {
  const organization = {
    name: annotation(null),
    website: annotation(null),
    email: annotation(null),
    domain: annotation({ rule: 'domain_from_url', from: ['website'] }),
    mail_domain: annotation({ rule: 'domain_from_email', from: ['email'] }),
  };

  it('derives each declared field from its source, naming the source field', () => {
    const candidates = deriveCandidates({ name: 'Acme', website: 'https://www.acme.co.uk/about', email: 'hello@acme.co.uk' }, organization);
    expect(candidates).toEqual([
      {
        field: 'domain',
        value: 'acme.co.uk',
        confidence: DERIVATION_CONFIDENCE.domain_from_url,
        strategy: 'derive:domain_from_url',
        sourceRefs: ['field:website'],
      },
      {
        field: 'mail_domain',
        value: 'acme.co.uk',
        confidence: DERIVATION_CONFIDENCE.domain_from_email,
        strategy: 'derive:domain_from_email',
        sourceRefs: ['field:email'],
      },
    ]);
    expect(DERIVATION_CONFIDENCE.domain_from_url).toBeGreaterThan(DERIVATION_CONFIDENCE.domain_from_email);
  });

  it('proposes nothing from an empty, refused or non-text source', () => {
    expect(deriveCandidates({ website: null, email: 'dana@gmail.com' }, organization)).toEqual([]);
    expect(deriveCandidates({ website: 'http://192.168.0.1', email: 42 }, organization)).toEqual([]);
    expect(deriveCandidates({}, organization)).toEqual([]);
  });

  it('merges sources that agree and keeps sources that disagree apart', () => {
    const fromTwo = { domain: annotation({ rule: 'domain_from_url', from: ['website', 'homepage'] }) };
    expect(deriveCandidates({ website: 'https://acme.io', homepage: 'www.acme.io/en' }, fromTwo)).toEqual([
      expect.objectContaining({ value: 'acme.io', sourceRefs: ['field:website', 'field:homepage'] }),
    ]);
    const multi = { domain: annotation({ rule: 'domain_from_email', from: ['emails'] }) };
    const values = deriveCandidates({ emails: ['a@acme.io', 'b@globex.com', 'c@gmail.com', 7] }, multi).map((c) => c.value);
    expect(values).toEqual(['acme.io', 'globex.com']);
  });
});
