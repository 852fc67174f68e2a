import { parseStructure, type StructureDefinition } from '../../server/services/knowledge/structure-definition.js';

/** A structure body with a required identity `name` plus `properties` (which may replace it). */
export function body(properties: Record<string, unknown>, extra: { required?: string[]; version?: string } = {}) {
  return {
    schema_version: extra.version ?? '1.0.0',
    schema: {
      type: 'object',
      required: extra.required ?? ['name'],
      properties: { name: { type: 'string', 'x-knowledge': { identity: true, weight: 2 } }, ...properties },
    },
  };
}

/** The definition of a structure the test knows to be valid; a refusal fails the test with its problems. */
export function define(type: string, input: unknown): StructureDefinition {
  const outcome = parseStructure(type, input);
  if (!outcome.ok) throw new Error(`structure refused: ${JSON.stringify(outcome.problems)}`);
  return outcome.definition;
}
