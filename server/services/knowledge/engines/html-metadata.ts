import { Parser } from 'htmlparser2';

/**
 * What a web page says about itself in machine-readable form: its schema.org JSON-LD nodes and its
 * `<meta>` tags (OpenGraph and friends). Parsing only; deciding what the data means for a knowledge
 * object is web-metadata.ts's job.
 */
export interface HtmlMetadata {
  /** Every typed JSON-LD node, top-level, inside `@graph` and nested, in document order. */
  nodes: JsonLdNode[];
  /** Nodes by `@id`, to follow references such as `"address": {"@id": "#hq"}`. */
  byId: Map<string, JsonLdNode>;
  /** `<meta property|name=... content=...>`, first occurrence of each key, key lower-cased. */
  meta: Map<string, string>;
}

export type JsonLdNode = { [key: string]: unknown };

/** Guards against a page built to make us walk forever: deeper or further nodes are ignored. */
const MAX_DEPTH = 8;
const MAX_NODES = 500;

/** Reads the page; malformed JSON-LD blocks are skipped, never fatal. `isJsonDocument`: the body IS JSON-LD. */
export function readHtmlMetadata(body: string, isJsonDocument = false): HtmlMetadata {
  const scripts: string[] = [];
  const meta = new Map<string, string>();
  if (isJsonDocument) scripts.push(body);
  else {
    let current: string | null = null;
    const parser = new Parser(
      {
        onopentag(name, attrs) {
          if (name === 'script' && isJsonLdType(attrs.type)) current = '';
          if (name === 'meta' && attrs.content !== undefined) {
            const key = (attrs.property ?? attrs.name ?? '').trim().toLowerCase();
            if (key && !meta.has(key)) meta.set(key, attrs.content.trim());
          }
        },
        ontext(text) {
          if (current !== null) current += text;
        },
        onclosetag(name) {
          if (name === 'script' && current !== null) {
            scripts.push(current);
            current = null;
          }
        },
      },
      { decodeEntities: true },
    );
    parser.write(body);
    parser.end();
  }

  const nodes: JsonLdNode[] = [];
  for (const script of scripts) {
    const parsed = parseJson(script);
    if (parsed !== undefined) collectNodes(parsed, nodes, 0);
  }
  const byId = new Map<string, JsonLdNode>();
  for (const node of nodes) if (typeof node['@id'] === 'string' && !byId.has(node['@id'])) byId.set(node['@id'], node);
  return { nodes, byId, meta };
}

function isJsonLdType(type: string | undefined): boolean {
  return (type ?? '').split(';')[0]!.trim().toLowerCase() === 'application/ld+json';
}

/** JSON.parse that tolerates what CMSs emit: an HTML comment or CDATA wrapper around the JSON. */
function parseJson(text: string): unknown {
  const unwrapped = text
    .trim()
    .replace(/^(<!--|\/\/\s*<!\[CDATA\[)/, '')
    .replace(/(-->|\/\/\s*\]\]>)$/, '')
    .trim();
  try {
    return JSON.parse(unwrapped) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is JsonLdNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function collectNodes(value: unknown, out: JsonLdNode[], depth: number): void {
  if (depth > MAX_DEPTH || out.length >= MAX_NODES) return;
  if (Array.isArray(value)) {
    for (const item of value) collectNodes(item, out, depth + 1);
    return;
  }
  if (!isObject(value)) return;
  if (value['@type'] !== undefined) out.push(value);
  for (const [key, child] of Object.entries(value)) {
    if (key !== '@context' && typeof child === 'object' && child !== null) collectNodes(child, out, depth + 1);
  }
}

/** A node's types without vocabulary prefixes (`schema:Organization`, `https://schema.org/Person` → bare names). */
export function nodeTypes(node: JsonLdNode): string[] {
  const raw = Array.isArray(node['@type']) ? node['@type'] : [node['@type']];
  return raw.filter((t): t is string => typeof t === 'string').map((t) => t.replace(/^(schema:|https?:\/\/schema\.org\/)/, ''));
}

/** Follows an `{"@id": ...}` reference to the node it names, when the page defines it. */
export function deref(value: unknown, byId: Map<string, JsonLdNode>): unknown {
  if (isObject(value) && typeof value['@id'] === 'string' && Object.keys(value).length === 1) return byId.get(value['@id']) ?? value;
  return value;
}

/**
 * The text of a property value: a string or number, a node's `name` (a DefinedTerm, an Organization
 * given inline), a `@value` literal, or the first usable item of a list. Null when there is none.
 */
export function textOf(value: unknown, byId: Map<string, JsonLdNode>, depth = 0): string | null {
  if (depth > 3) return null;
  const v = deref(value, byId);
  if (typeof v === 'string') return cleanText(v);
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) {
    for (const item of v) {
      const text = textOf(item, byId, depth + 1);
      if (text) return text;
    }
    return null;
  }
  if (isObject(v)) return textOf(v['@value'] ?? v.name, byId, depth + 1);
  return null;
}

/** Collapsed whitespace, at most 300 characters; empty → null. */
export function cleanText(text: string): string | null {
  const clean = text.replace(/\s+/g, ' ').trim();
  return clean ? clean.slice(0, 300) : null;
}

export function asNode(value: unknown, byId: Map<string, JsonLdNode>): JsonLdNode | null {
  const v = deref(Array.isArray(value) ? value[0] : value, byId);
  return isObject(v) ? v : null;
}
