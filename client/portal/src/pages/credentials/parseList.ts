/** "a, b\nc" → ["a", "b", "c"]; an empty text is `undefined` (no restriction). */
export function parseList(text: string): string[] | undefined {
  const items = text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  return items.length > 0 ? items : undefined;
}
