/**
 * Whether a point's payload passes a Qdrant filter, for the subset of conditions the adapter builds
 * (`must` / `must_not` lists of field conditions with `match.value`, `match.any` or a `range` of numbers
 * or RFC 3339 datetimes). An array field matches when any of its values does, as in Qdrant.
 */

type Condition = { key: string; match?: { value?: unknown; any?: unknown[] }; range?: Record<string, number | string | null> };
type Filter = { must?: Condition[]; must_not?: Condition[]; should?: unknown };

export function matchesFilter(filter: unknown, payload: Record<string, unknown>): boolean {
  if (!filter) return true;
  const f = filter as Filter;
  if (f.should !== undefined) throw new Error('qdrant-filter-match: `should` is not used by the adapter');
  return (f.must ?? []).every((c) => matchesCondition(c, payload)) && !(f.must_not ?? []).some((c) => matchesCondition(c, payload));
}

function matchesCondition(c: Condition, payload: Record<string, unknown>): boolean {
  const raw = payload[c.key];
  const values = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  if (c.match) {
    if ('value' in c.match) return values.some((v) => v === c.match!.value);
    if (Array.isArray(c.match.any)) return values.some((v) => c.match!.any!.includes(v));
    throw new Error(`qdrant-filter-match: unsupported match ${JSON.stringify(c.match)}`);
  }
  if (c.range) {
    const num = (x: unknown) => (typeof x === 'number' ? x : typeof x === 'string' ? Date.parse(x) : NaN);
    return values.some((v) => {
      const x = num(v);
      if (Number.isNaN(x)) return false;
      const r = c.range!;
      return (
        (r.gte == null || x >= num(r.gte)) &&
        (r.lte == null || x <= num(r.lte)) &&
        (r.gt == null || x > num(r.gt)) &&
        (r.lt == null || x < num(r.lt))
      );
    });
  }
  throw new Error(`qdrant-filter-match: unsupported condition ${JSON.stringify(c)}`);
}
