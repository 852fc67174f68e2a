import type { FieldAnnotation, FieldValue } from './model.js';

/**
 * The least the knowledge rules need to know about a structure's fields: each field's annotation and
 * whether the JSON Schema requires it. The structure parser produces this; the rules read nothing else,
 * so they stay independent of how a structure is stored or parsed.
 */
export interface KnowledgeField {
  annotation: FieldAnnotation;
  required: boolean;
}

/** A structure's fields by name, in the structure's own order (the order rules iterate in). */
export type KnowledgeFields = Readonly<Record<string, KnowledgeField>>;

/** An object's stored values by field name; a field without an entry is empty. */
export type FieldValues = Readonly<Record<string, FieldValue | undefined>>;
