/** Which names a bench's generated memories state facts about, so its knowledge objects can be found in them. */

/** Names the memories state facts about, most mentioned first: people ("X Y works at / lives in") and organisations ("works at Z"). */
export function mentionedNames(contents: readonly string[]): { people: string[]; organizations: string[] } {
  const people = new Map<string, number>();
  const organizations = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  for (const c of contents) {
    for (const m of c.matchAll(/\b([A-Z][a-z]+ [A-Z][a-z]+) (?:works at|lives in|moved to)\b/g)) bump(people, m[1]!);
    for (const m of c.matchAll(/\bworks at ([A-Z][a-z]+(?: [A-Z][a-z]+)?) (?:as|now)\b/g)) bump(organizations, m[1]!);
  }
  const ranked = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k]) => k);
  return { people: ranked(people), organizations: ranked(organizations) };
}
