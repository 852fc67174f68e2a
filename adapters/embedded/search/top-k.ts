/**
 * Bounded min-heap keeping the k best (id, score) pairs: higher scores first, ties by lower id, so what
 * is kept does not depend on the order pairs arrive in. On typed arrays: a dense scan pushes a few
 * hundred rows through it per query, and the keyword channel every match that passes the filters.
 */
export class TopK {
  private readonly ids: Int32Array;
  private readonly scores: Float64Array;
  private n = 0;

  constructor(private readonly k: number) {
    const size = Math.max(0, k);
    this.ids = new Int32Array(size);
    this.scores = new Float64Array(size);
  }

  push(id: number, score: number): void {
    if (this.n < this.k) {
      this.ids[this.n] = id;
      this.scores[this.n] = score;
      this.up(this.n++);
    } else if (this.k > 0 && worse(this.scores[0]!, this.ids[0]!, score, id)) {
      this.ids[0] = id;
      this.scores[0] = score;
      this.down(0);
    }
  }

  /** The lowest score kept once k are held (a pair scoring less cannot enter), else -Infinity. */
  get minScore(): number {
    return this.n < this.k ? -Infinity : this.scores[0]!;
  }

  /** The pairs kept, best first, ties by id. */
  sorted(): [number, number][] {
    const out: [number, number][] = [];
    for (let i = 0; i < this.n; i++) out.push([this.ids[i]!, this.scores[i]!]);
    return out.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  }

  private up(i: number): void {
    const { ids, scores } = this;
    const id = ids[i]!;
    const s = scores[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!worse(s, id, scores[p]!, ids[p]!)) break;
      ids[i] = ids[p]!;
      scores[i] = scores[p]!;
      i = p;
    }
    ids[i] = id;
    scores[i] = s;
  }

  private down(i: number): void {
    const { ids, scores, n } = this;
    const id = ids[i]!;
    const s = scores[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && worse(scores[r]!, ids[r]!, scores[l]!, ids[l]!) ? r : l;
      if (!worse(scores[m]!, ids[m]!, s, id)) break;
      ids[i] = ids[m]!;
      scores[i] = scores[m]!;
      i = m;
    }
    ids[i] = id;
    scores[i] = s;
  }
}

/** Whether (a, aId) ranks below (b, bId): a lower score, or the same score and a higher id. */
function worse(a: number, aId: number, b: number, bId: number): boolean {
  return a < b || (a === b && aId > bId);
}
