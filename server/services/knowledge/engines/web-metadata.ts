import { normalizeEntityKey } from '../../../text/entities.js';
import type { Candidate } from '../model.js';
import { asNode, cleanText, nodeTypes, readHtmlMetadata, textOf, type HtmlMetadata, type JsonLdNode } from './html-metadata.js';

/**
 * The web engine's reading of a fetched page (issue #23, engine `web`): schema.org JSON-LD (strategy
 * `jsonld`) and OpenGraph tags (strategy `opengraph`) turned into candidates for an `organization` or
 * a `person` object.
 *
 * Identity: a page may describe many things (partners, customers, authors), so data is only used when
 * it is about THIS object. A JSON-LD node counts when one of its names (`name`, `legalName`,
 * `alternateName`) matches the object's name, compared without case, accents, punctuation or legal
 * forms ("ACME Corp." = "Acme"); or when the page is the object's own website (same host as its
 * `website` field, `www.` aside) and the node's own `url` is on that host. OpenGraph describes the page,
 * not an entity, so it counts only when `og:site_name` or `og:title` matches the name or the page is
 * the object's own website. Anything else yields no candidate.
 */
export interface WebMetadataSubject {
  /** The object's structure type; only `organization` and `person` have fields this engine fills. */
  type: string;
  /** The object's identity name. */
  name: string;
  /** The object's `website` field, when it has one: pages on that host speak for the object. */
  website?: string | null;
}

/** JSON-LD about the object on its own site is what the site's owner states about itself. */
export const CONFIDENCE = {
  /** JSON-LD node named like the object, on the object's own website. */
  jsonldOwnSiteByName: 0.9,
  /** JSON-LD node on the own website whose `url` is that site, under another name (a brand, a rename). */
  jsonldOwnSiteByUrl: 0.85,
  /** JSON-LD node named like the object on someone else's page: a claim by a third party, proposed only. */
  jsonldElsewhere: 0.75,
  /** `knowsAbout` is topics, not an industry: a weak hint for `industry`, proposed at most. */
  jsonldKnowsAbout: 0.6,
  opengraphOwnSite: 0.7,
  opengraphElsewhere: 0.6,
} as const;

const ORGANIZATION_TYPES = new Set([
  'Organization',
  'Corporation',
  'LocalBusiness',
  'OnlineBusiness',
  'OnlineStore',
  'NGO',
  'EducationalOrganization',
  'GovernmentOrganization',
  'NewsMediaOrganization',
  'MedicalOrganization',
  'SportsOrganization',
  'Airline',
  'Store',
  'ProfessionalService',
  'FinancialService',
  'Restaurant',
]);

/** Legal forms left out when comparing organisation names. */
const LEGAL_FORMS = new Set(
  'inc incorporated ltd limited llc llp lp plc corp corporation co company gmbh mbh ag kg sa sas sarl srl spa bv nv ab aktiebolag as asa oy oyj pty pte se ug'.split(
    ' ',
  ),
);

/** Name comparison key: {@link normalizeEntityKey} without trailing legal forms ("Acme GmbH & Co. KG" → "acme"). */
export function nameKey(name: string): string {
  const words = normalizeEntityKey(name.replace(/&/g, ' ')).split(' ');
  while (words.length > 1 && LEGAL_FORMS.has(words[words.length - 1]!)) words.pop();
  return words.join(' ');
}

/** Candidates the page offers for the object; none when the page says nothing about it. */
export function readWebMetadata(body: string, finalUrl: string, subject: WebMetadataSubject, contentType = 'text/html'): Candidate[] {
  if (subject.type !== 'organization' && subject.type !== 'person') return [];
  const page = safeUrl(finalUrl);
  if (!page || !nameKey(subject.name)) return [];
  const metadata = readHtmlMetadata(body, contentType === 'application/ld+json');
  const ownSite = subject.website ? sameSite(page, websiteUrl(subject.website)) : false;
  const context: Context = { metadata, page, ownSite, subjectKey: nameKey(subject.name), sourceRefs: [page.href] };
  const found =
    subject.type === 'organization' ? [...organizationJsonLd(context), ...organizationOpenGraph(context)] : personJsonLd(context);
  return strongestPerValue(found);
}

interface Context {
  metadata: HtmlMetadata;
  page: URL;
  ownSite: boolean;
  subjectKey: string;
  sourceRefs: string[];
}

/** How sure the node is about the object, or null when it is about something else. */
function jsonLdConfidence(node: JsonLdNode, ctx: Context): number | null {
  const { byId } = ctx.metadata;
  const names = [node.name, node.legalName, ...(Array.isArray(node.alternateName) ? node.alternateName : [node.alternateName])];
  if (names.some((n) => nameKey(textOf(n, byId) ?? '') === ctx.subjectKey)) {
    return ctx.ownSite ? CONFIDENCE.jsonldOwnSiteByName : CONFIDENCE.jsonldElsewhere;
  }
  const url = urlOf(node.url, ctx);
  return ctx.ownSite && url && sameSite(ctx.page, url) ? CONFIDENCE.jsonldOwnSiteByUrl : null;
}

function organizationJsonLd(ctx: Context): Candidate[] {
  const { byId } = ctx.metadata;
  const out: Candidate[] = [];
  for (const node of ctx.metadata.nodes) {
    if (!nodeTypes(node).some((t) => ORGANIZATION_TYPES.has(t))) continue;
    const confidence = jsonLdConfidence(node, ctx);
    if (confidence === null) continue;
    const add = (field: string, value: string | null, c = confidence) => {
      if (value) out.push({ field, value, confidence: c, strategy: 'jsonld', sourceRefs: ctx.sourceRefs });
    };
    add('name', textOf(node.name, byId));
    const url = urlOf(node.url, ctx);
    add('website', url && websiteOf(url));
    add('domain', url && domainOf(url));
    const industry = textOf(node.industry, byId);
    add('industry', industry);
    if (!industry) add('industry', textOf(node.knowsAbout, byId), Math.min(confidence, CONFIDENCE.jsonldKnowsAbout));
    add('headquarters', placeOf(node.address, byId) ?? placeOf(asNode(node.location, byId)?.address, byId) ?? textOf(node.location, byId));
  }
  return out;
}

function personJsonLd(ctx: Context): Candidate[] {
  const { byId } = ctx.metadata;
  const out: Candidate[] = [];
  for (const node of ctx.metadata.nodes) {
    if (!nodeTypes(node).includes('Person')) continue;
    const confidence = jsonLdConfidence(node, ctx);
    if (confidence === null) continue;
    const add = (field: string, value: string | null) => {
      if (value) out.push({ field, value, confidence, strategy: 'jsonld', sourceRefs: ctx.sourceRefs });
    };
    add('job_title', textOf(node.jobTitle, byId));
    add('employer', textOf(node.worksFor, byId));
    const email = textOf(node.email, byId)?.replace(/^mailto:/i, '') ?? null;
    add('email', email && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? email : null);
    add('phone', textOf(node.telephone, byId)?.replace(/^tel:/i, '') ?? null);
    add(
      'location',
      placeOf(node.homeLocation, byId) ?? placeOf(asNode(node.homeLocation, byId)?.address, byId) ?? placeOf(node.address, byId),
    );
  }
  return out;
}

function organizationOpenGraph(ctx: Context): Candidate[] {
  const { meta } = ctx.metadata;
  const siteName = cleanText(meta.get('og:site_name') ?? '');
  const title = cleanText(meta.get('og:title') ?? '');
  const named = [siteName, title].some((n) => n !== null && nameKey(n) === ctx.subjectKey);
  if (!named && !ctx.ownSite) return [];
  const confidence = ctx.ownSite ? CONFIDENCE.opengraphOwnSite : CONFIDENCE.opengraphElsewhere;
  const out: Candidate[] = [];
  const add = (field: string, value: string | null) => {
    if (value) out.push({ field, value, confidence, strategy: 'opengraph', sourceRefs: ctx.sourceRefs });
  };
  add('name', siteName);
  const url = urlOf(meta.get('og:url'), ctx);
  // og:url is the canonical address of this page; its site is the organisation's only when the page is about it.
  add('website', url && websiteOf(url));
  add('domain', url && domainOf(url));
  return out;
}

/** "City, Country" from a PostalAddress (or the text of an address given as a string). */
function placeOf(value: unknown, byId: Map<string, JsonLdNode>): string | null {
  if (typeof value === 'string') return cleanText(value);
  const address = asNode(value, byId);
  if (!address) return null;
  if (!nodeTypes(address).includes('PostalAddress') && address.addressLocality === undefined && address.addressCountry === undefined)
    return null;
  const city = textOf(address.addressLocality, byId) ?? textOf(address.addressRegion, byId);
  const country = countryName(textOf(address.addressCountry, byId));
  return [city, country].filter(Boolean).join(', ') || null;
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** ISO 3166 two-letter codes become English names ("DE" → "Germany"); names stay as written. */
function countryName(country: string | null): string | null {
  if (!country || !/^[A-Za-z]{2}$/.test(country)) return country;
  try {
    return regionNames.of(country.toUpperCase()) ?? country;
  } catch {
    return country;
  }
}

function safeUrl(raw: string, base?: URL): URL | null {
  try {
    const url = new URL(raw, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** The object's `website` field as a URL; a bare host ("acme.example") is read as https; null unless http(s). */
export function websiteUrl(website: string): URL | null {
  const trimmed = website.trim();
  return safeUrl(/^[a-z][a-z\d+.-]*:/i.test(trimmed) ? trimmed : `https://${trimmed}`);
}

function urlOf(value: unknown, ctx: Context): URL | null {
  const text = textOf(value, ctx.metadata.byId);
  return text ? safeUrl(text, ctx.page) : null;
}

function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^www\./, '');
}

/** Same host, `www.` aside, or a subdomain of the object's host (`shop.acme.example` on `acme.example`). */
function sameSite(page: URL, site: URL | null): boolean {
  if (!site) return false;
  const a = hostOf(page);
  const b = hostOf(site);
  return a === b || a.endsWith(`.${b}`);
}

/** A site's home as its origin ("https://acme.example"); a deeper URL as written. */
function websiteOf(url: URL): string {
  return url.pathname === '/' && !url.search ? url.origin : url.href.replace(/#.*$/, '');
}

function domainOf(url: URL): string {
  return hostOf(url);
}

/** One candidate per strategy, field and value, at its highest confidence, first-seen order kept. */
function strongestPerValue(candidates: Candidate[]): Candidate[] {
  const best = new Map<string, Candidate>();
  for (const c of candidates) {
    const key = `${c.strategy}\u0000${c.field}\u0000${String(c.value)}`;
    const seen = best.get(key);
    if (!seen) best.set(key, c);
    else if (c.confidence > seen.confidence) best.set(key, c);
  }
  return [...best.values()];
}
