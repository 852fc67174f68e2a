/**
 * The REST operations of a served OpenAPI document, flattened for suites that must visit every
 * route and every parameter (the fuzz suite): a route added to the routers is picked up with no
 * list to update.
 */

export type JsonSchema = Record<string, any>;

export interface OperationParam {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  /** The template, e.g. `/memories/{id}`. */
  path: string;
  credential: 'bearer' | 'apiKey' | 'none';
  params: OperationParam[];
  /** The JSON body's schema when the operation takes one. */
  body?: JsonSchema;
}

export function operationsOf(doc: {
  paths: Record<string, Record<string, any>>;
  components?: { schemas?: Record<string, JsonSchema> };
}): Operation[] {
  const resolve = (s: JsonSchema): JsonSchema => {
    const ref = s?.$ref as string | undefined;
    return ref ? resolve(doc.components!.schemas![ref.replace('#/components/schemas/', '')]!) : s;
  };
  const out: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const scheme = op.security?.[0] ? Object.keys(op.security[0])[0] : undefined;
      const credential = scheme === 'bearerAuth' ? 'bearer' : scheme === 'apiKeyAuth' ? 'apiKey' : 'none';
      const params = ((op.parameters ?? []) as any[]).map((p) => ({
        name: p.name,
        in: p.in,
        required: !!p.required,
        schema: resolve(p.schema ?? {}),
      }));
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      out.push({ method: method.toUpperCase(), path, credential, params, body: bodySchema ? resolve(bodySchema) : undefined });
    }
  }
  return out;
}

/** A value the schema accepts (its example when it gives one), so a hostile value elsewhere gets past validation of the rest. */
export function exampleOf(schema: JsonSchema): unknown {
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum) return schema.enum[0];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return exampleOf(alternatives[0]);
  switch (schema.type) {
    case 'string':
      if (schema.format === 'email') return 'fuzz-target@example.test';
      if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    case 'integer':
    case 'number':
      return schema.minimum ?? schema.exclusiveMinimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => exampleOf(schema.items ?? {}));
    case 'object': {
      const obj: Record<string, unknown> = {};
      for (const key of schema.required ?? []) obj[key] = exampleOf(schema.properties?.[key] ?? {});
      return obj;
    }
    default:
      return 'x';
  }
}

/** Fills a path template; values must already be URL-encoded. */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? 'x');
}
