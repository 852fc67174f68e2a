/** Text forms of knowledge values, shared by the list, the field table and the log. */

export const percent = (score: number) => `${Math.round(score * 100)}%`;

/** Confidence as text with two decimals (0.82), never colour alone. */
export const confidenceText = (c: number | null | undefined) => (c === null || c === undefined ? '—' : c.toFixed(2));

export function valueText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

export const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** What a person calls the object: its `name` field when it has one, else its id. */
export function objectLabel(o: { id: string; fields: Record<string, { value: unknown }> }): string {
  const name = o.fields.name?.value;
  return typeof name === 'string' && name ? name : o.id;
}

/** Provenance values as words. */
export const provenanceText: Record<string, string> = {
  AGENT_INPUT: 'Client input',
  KG_INFERENCE: 'Knowledge graph',
  LLM_INFERENCE: 'Language model',
  WEB_INFERENCE: 'Web',
};
