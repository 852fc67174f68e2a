import { describe, expect, it } from 'vitest';
import { CONFIDENCE, nameKey, readWebMetadata, type WebMetadataSubject } from '../../server/services/knowledge/engines/web-metadata.js';

/**
 * Reading schema.org JSON-LD and OpenGraph from pages written here: which nodes count as the object
 * (identity by name or by its own website), what each field is read from, and that broken or foreign
 * data yields nothing rather than an error or a wrong value.
 */

const page = (head: string, body = '') => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
const jsonLd = (data: unknown) => `<script type="application/ld+json">${JSON.stringify(data)}</script>`;
const og = (property: string, content: string) => `<meta property="${property}" content="${content}">`;

const fjord: WebMetadataSubject = {
  type: 'organization',
  name: 'Lindqvist Fjord Analytics',
  website: 'https://www.lindqvist-fjord.example/',
};
const FJORD_HOME = 'https://www.lindqvist-fjord.example/en/about';

/** field → value for one strategy, to compare whole outcomes in one assertion. */
function byField(candidates: ReturnType<typeof readWebMetadata>, strategy: string) {
  return Object.fromEntries(candidates.filter((c) => c.strategy === strategy).map((c) => [c.field, [c.value, c.confidence]]));
}

describe('JSON-LD about an organisation', () => {
  const graphPage = page(
    jsonLd({
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'WebSite', '@id': '#site', url: 'https://www.lindqvist-fjord.example/', publisher: { '@id': '#org' } },
        {
          '@type': 'Organization',
          '@id': '#org',
          name: 'Lindqvist Fjord Analytics AB',
          url: 'https://www.lindqvist-fjord.example/',
          industry: { '@type': 'DefinedTerm', name: 'Maritime data analysis' },
          address: { '@id': '#hq' },
          email: 'hello@lindqvist-fjord.example',
        },
        { '@type': 'PostalAddress', '@id': '#hq', streetAddress: 'Kaigata 4', addressLocality: 'Tromsø', addressCountry: 'NO' },
      ],
    }),
  );

  it('reads name, website, domain, industry and headquarters from an @graph, following @id references', () => {
    const candidates = readWebMetadata(graphPage, FJORD_HOME, fjord);
    const c = CONFIDENCE.jsonldOwnSiteByName;
    expect(byField(candidates, 'jsonld')).toEqual({
      name: ['Lindqvist Fjord Analytics AB', c],
      website: ['https://www.lindqvist-fjord.example', c],
      domain: ['lindqvist-fjord.example', c],
      industry: ['Maritime data analysis', c],
      headquarters: ['Tromsø, Norway', c],
    });
    for (const candidate of candidates) expect(candidate.sourceRefs).toEqual([FJORD_HOME]);
  });

  it('trusts the same node less on a page that is not the object’s own website', () => {
    const candidates = readWebMetadata(graphPage, 'https://directory.example/companies/4711', fjord);
    expect(new Set(candidates.map((c) => c.confidence))).toEqual(new Set([CONFIDENCE.jsonldElsewhere]));
    expect(candidates.map((c) => c.field)).toContain('headquarters');
  });

  it('reads a nested address, prefixed and multiple types, and knowsAbout as a weak industry', () => {
    const html = page(
      jsonLd({
        '@context': 'https://schema.org',
        '@type': ['schema:Corporation', 'Organization'],
        legalName: 'Lindqvist Fjord Analytics Aktiebolag',
        name: 'LFA',
        knowsAbout: ['Sea ice forecasting', 'Shipping routes'],
        location: {
          '@type': 'Place',
          address: { '@type': 'PostalAddress', addressLocality: ' Bodø ', addressCountry: { '@type': 'Country', name: 'Norway' } },
        },
      }),
    );
    // No url on the node and a bare-host website field: identity comes from the legal name alone.
    const candidates = readWebMetadata(html, 'https://lindqvist-fjord.example/', { ...fjord, website: 'lindqvist-fjord.example' });
    expect(byField(candidates, 'jsonld')).toEqual({
      name: ['LFA', CONFIDENCE.jsonldOwnSiteByName],
      industry: ['Sea ice forecasting', CONFIDENCE.jsonldKnowsAbout],
      headquarters: ['Bodø, Norway', CONFIDENCE.jsonldOwnSiteByName],
    });
  });

  it('accepts a node under another name on the own website when its url is that site', () => {
    const html = page(jsonLd({ '@type': 'LocalBusiness', name: 'Fjord Café', url: '/', address: 'Storgata 1, 9008 Tromsø' }));
    expect(byField(readWebMetadata(html, FJORD_HOME, fjord), 'jsonld')).toEqual({
      name: ['Fjord Café', CONFIDENCE.jsonldOwnSiteByUrl],
      website: ['https://www.lindqvist-fjord.example', CONFIDENCE.jsonldOwnSiteByUrl],
      domain: ['lindqvist-fjord.example', CONFIDENCE.jsonldOwnSiteByUrl],
      headquarters: ['Storgata 1, 9008 Tromsø', CONFIDENCE.jsonldOwnSiteByUrl],
    });
  });

  it('skips a malformed block and still reads the next one, also when wrapped in a comment', () => {
    const html = page(
      '<script type="application/ld+json">{"@type": "Organization", "name": "Lindqvist Fjord Analytics", "industry": </script>' +
        `<script type="application/ld+json"><!-- ${JSON.stringify({ '@type': 'Organization', name: 'Lindqvist Fjord Analytics', industry: 'Oceanography' })} --></script>` +
        '<script type="application/ld+json">[1, "two", null]</script>',
    );
    expect(byField(readWebMetadata(html, FJORD_HOME, fjord), 'jsonld')).toEqual({
      name: ['Lindqvist Fjord Analytics', CONFIDENCE.jsonldOwnSiteByName],
      industry: ['Oceanography', CONFIDENCE.jsonldOwnSiteByName],
    });
  });

  it('ignores JSON-LD in other script types and in the body text', () => {
    const data = JSON.stringify({ '@type': 'Organization', name: 'Lindqvist Fjord Analytics', industry: 'Fishing' });
    const html = page(`<script type="application/json">${data}</script><script>var x = ${data}</script>`, `<pre>${data}</pre>`);
    expect(readWebMetadata(html, FJORD_HOME, fjord)).toEqual([]);
  });

  it('reads a JSON-LD document served as application/ld+json', () => {
    const body = JSON.stringify({ '@type': 'NGO', name: 'Lindqvist Fjord Analytics', industry: 'Research' });
    expect(byField(readWebMetadata(body, FJORD_HOME, fjord, 'application/ld+json'), 'jsonld')).toMatchObject({
      industry: ['Research', 0.9],
    });
  });
});

describe('a page about someone else', () => {
  it('yields nothing from another company’s page', () => {
    const html = page(
      jsonLd({
        '@type': 'Organization',
        name: 'Borealis Shipping',
        url: 'https://borealis.example/',
        industry: 'Logistics',
        address: { '@type': 'PostalAddress', addressLocality: 'Oslo' },
      }) +
        og('og:site_name', 'Borealis Shipping') +
        og('og:url', 'https://borealis.example/'),
    );
    expect(readWebMetadata(html, 'https://borealis.example/', fjord)).toEqual([]);
  });

  it('does not take a bare-host website field for a match on every page', () => {
    const html = page(og('og:site_name', 'Borealis Shipping') + og('og:url', 'https://borealis.example/'));
    expect(readWebMetadata(html, 'https://borealis.example/', { ...fjord, website: 'lindqvist-fjord.example' })).toEqual([]);
  });

  it('ignores a partner listed on the own website and keeps the object’s node', () => {
    const html = page(
      jsonLd([
        { '@type': 'Organization', name: 'Borealis Shipping', url: 'https://borealis.example/', industry: 'Logistics' },
        { '@type': 'Organization', name: 'Lindqvist Fjord Analytics', industry: 'Maritime data analysis' },
      ]),
    );
    const industries = readWebMetadata(html, FJORD_HOME, fjord).filter((c) => c.field === 'industry');
    expect(industries.map((c) => c.value)).toEqual(['Maritime data analysis']);
  });

  it('returns nothing for types the engine does not fill', () => {
    const html = page(jsonLd({ '@type': 'Organization', name: 'Lindqvist Fjord Analytics', industry: 'X' }));
    expect(readWebMetadata(html, FJORD_HOME, { ...fjord, type: 'project' })).toEqual([]);
  });
});

describe('OpenGraph', () => {
  const ogPage = page(
    og('og:site_name', 'Fjord Analytics &amp; Partners') + og('og:url', 'https://www.lindqvist-fjord.example/') + og('og:title', 'Welcome'),
  );

  it('reads site name, website and domain on the own website, below the commit threshold', () => {
    expect(byField(readWebMetadata(ogPage, FJORD_HOME, fjord), 'opengraph')).toEqual({
      name: ['Fjord Analytics & Partners', CONFIDENCE.opengraphOwnSite],
      website: ['https://www.lindqvist-fjord.example', CONFIDENCE.opengraphOwnSite],
      domain: ['lindqvist-fjord.example', CONFIDENCE.opengraphOwnSite],
    });
    expect(CONFIDENCE.opengraphOwnSite).toBeLessThan(CONFIDENCE.jsonldOwnSiteByUrl);
  });

  it('counts elsewhere only when the site name or title is the object’s name', () => {
    const elsewhere = { ...fjord, website: null };
    expect(readWebMetadata(ogPage, 'https://mirror.example/', elsewhere)).toEqual([]);
    const named = page(og('og:title', 'Lindqvist Fjord Analytics Ltd.') + og('og:url', 'https://lindqvist-fjord.example/'));
    expect(byField(readWebMetadata(named, 'https://mirror.example/', elsewhere), 'opengraph')).toEqual({
      website: ['https://lindqvist-fjord.example', CONFIDENCE.opengraphElsewhere],
      domain: ['lindqvist-fjord.example', CONFIDENCE.opengraphElsewhere],
    });
  });

  it('keeps JSON-LD and OpenGraph candidates for the same value apart, by strategy', () => {
    const html = page(
      jsonLd({ '@type': 'Organization', name: 'Lindqvist Fjord Analytics', url: 'https://www.lindqvist-fjord.example' }) +
        og('og:url', 'https://www.lindqvist-fjord.example/'),
    );
    const websites = readWebMetadata(html, FJORD_HOME, fjord).filter((c) => c.field === 'website');
    expect(websites.map((c) => [c.strategy, c.confidence])).toEqual([
      ['jsonld', CONFIDENCE.jsonldOwnSiteByName],
      ['opengraph', CONFIDENCE.opengraphOwnSite],
    ]);
  });
});

describe('JSON-LD about a person', () => {
  const person: WebMetadataSubject = { type: 'person', name: 'Jose Nunez-Varga', website: null };
  const html = page(
    jsonLd({
      '@context': 'https://schema.org',
      '@type': 'Person',
      name: 'José Núñez Varga',
      jobTitle: 'Head of Sea-Ice Research',
      worksFor: { '@type': 'Organization', name: 'Lindqvist Fjord Analytics' },
      email: 'mailto:jose@lindqvist-fjord.example',
      telephone: 'tel:+47 77 00 00 00',
      homeLocation: { '@type': 'Place', address: { '@type': 'PostalAddress', addressLocality: 'Tromsø', addressCountry: 'NO' } },
    }) + jsonLd({ '@type': 'Person', name: 'Someone Else', jobTitle: 'Intern' }),
  );

  it('reads job title, employer, e-mail, phone and location of the person named like the object', () => {
    const c = CONFIDENCE.jsonldElsewhere;
    expect(byField(readWebMetadata(html, 'https://people.example/jnv', person), 'jsonld')).toEqual({
      job_title: ['Head of Sea-Ice Research', c],
      employer: ['Lindqvist Fjord Analytics', c],
      email: ['jose@lindqvist-fjord.example', c],
      phone: ['+47 77 00 00 00', c],
      location: ['Tromsø, Norway', c],
    });
  });

  it('gives the organisation only what its own (nested) node says, never the person’s fields', () => {
    const forOrganization = readWebMetadata(html, 'https://people.example/jnv', { ...fjord, website: null });
    expect(byField(forOrganization, 'jsonld')).toEqual({ name: ['Lindqvist Fjord Analytics', CONFIDENCE.jsonldElsewhere] });
  });

  it('drops an e-mail that is not an address', () => {
    const bad = page(jsonLd({ '@type': 'Person', name: 'Jose Nunez Varga', email: 'write to us' }));
    expect(readWebMetadata(bad, 'https://people.example/', person)).toEqual([]);
  });
});

describe('nameKey', () => {
  it.each([
    ['Lindqvist Fjord Analytics AB', 'lindqvist fjord analytics'],
    ['ACME Corp.', 'acme'],
    ['Müller GmbH & Co. KG', 'muller'],
    ['Company', 'company'],
    ['  The  Fjord, Inc ', 'the fjord'],
    ['José Núñez-Varga', 'jose nunez varga'],
  ])('%j → %j', (name, key) => {
    expect(nameKey(name)).toBe(key);
  });
});
