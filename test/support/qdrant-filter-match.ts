/**
 * Whether a point passes a Qdrant filter, for the subset of conditions the adapter builds: `must`,
 * `must_not` and `should` lists (`should`: at least one, when it has any) of field conditions with
 * `match.value`, `match.any` or a `range` of numbers or RFC 3339 datetimes, `has_id`, and nested
 * filters. An array field matches when any of its values does, and a range never matches a missing
 * field, as in Qdrant. `has_id` needs the point's id.
 */

type Condition = { key: string; match?: { value?: unknown; any?: unknown[] }; range?: Record<string, number | string | null> };
type Filter = { must?: unknown[]; must_not?: unknown[]; should?: unknown[] };

export function matchesFilter(filter: unknown, payload: Record<string, unknown>, id?: string): boolean {
  if (!filter) return true;
  const f = filter as Filter;
  const test = (c: unknown) => matchesAny(c, payload, id);
  return (
    (f.must ?? []).every(test) && !(f.must_not ?? []).some(test) && (f.should === undefined || f.should.length === 0 || f.should.some(test))
  );
}

function matchesAny(c: unknown, payload: Record<string, unknown>, id: string | undefined): boolean {
  const x = c as Record<string, unknown>;
  if ('has_id' in x) {
    if (id === undefined) throw new Error('qdrant-filter-match: `has_id` without the point id');
    return (x.has_id as unknown[]).map(String).includes(id);
  }
  if (!('key' in x) && ('must' in x || 'must_not' in x || 'should' in x)) return matchesFilter(x, payload, id);
  return matchesCondition(x as Condition, payload);
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
