/**
 * Evaluates the subset of Qdrant's score formula language the adapter sends (numbers, `$score[i]`,
 * payload variables, `sum`, `mult`, `div`), as Qdrant evaluates it (lib/segment/src/index/
 * query_optimization/rescore_formula/formula_scorer.rs): constants arrive as float32, arithmetic is in
 * float64, a prefetch that did not return the point scores 0 (or its default), a product stops at a zero
 * factor, a division with a zero numerator is 0, and the result is rounded to float32.
 */

export type FormulaPoint = {
  /** Score of the point in prefetch i, absent when that prefetch did not return it. */
  score(i: number): number | undefined;
  payload: Record<string, unknown>;
};

export function evaluateFormula(expr: unknown, point: FormulaPoint, defaults: Record<string, unknown> = {}): number {
  return Math.fround(evaluate(expr, point, defaults));
}

function evaluate(expr: unknown, point: FormulaPoint, defaults: Record<string, unknown>): number {
  if (typeof expr === 'number') return Math.fround(expr);
  if (typeof expr === 'string') {
    const m = /^\$score(?:\[(\d+)\])?$/.exec(expr);
    if (m) {
      const i = m[1] === undefined ? 0 : Number(m[1]);
      const s = point.score(i);
      if (s !== undefined) return s;
      const d = defaults[`$score[${i}]`];
      return typeof d === 'number' ? d : 0;
    }
    const v = point.payload[expr] ?? defaults[expr];
    if (typeof v !== 'number') throw new Error(`formula variable ${expr}: no number in the payload nor the defaults`);
    return v;
  }
  if (expr && typeof expr === 'object') {
    const e = expr as Record<string, unknown>;
    if (Array.isArray(e.sum)) return e.sum.reduce((acc: number, x) => acc + evaluate(x, point, defaults), 0);
    if (Array.isArray(e.mult)) {
      let product = 1;
      for (const x of e.mult) {
        const v = evaluate(x, point, defaults);
        if (v === 0) return 0;
        product *= v;
      }
      return product;
    }
    if (e.div && typeof e.div === 'object') {
      const d = e.div as { left: unknown; right: unknown; by_zero_default?: number };
      const left = evaluate(d.left, point, defaults);
      if (left === 0) return 0;
      const right = evaluate(d.right, point, defaults);
      if (right === 0 && d.by_zero_default !== undefined) return d.by_zero_default;
      const v = left / right;
      if (!Number.isFinite(v)) throw new Error(`formula: ${left}/${right} is not finite`);
      return v;
    }
  }
  throw new Error(`formula: unsupported expression ${JSON.stringify(expr)}`);
}
