/**
 * One namespace's documents in write order: (created_at, doc_id) ascending, as parallel arrays. The
 * episodic-context step of a search asks, for a candidate, which documents were written just before and
 * just after it in its namespace; a binary search answers that here instead of two index probes in
 * SQLite per candidate (each row read through libsql costs microseconds; a search asks for 50).
 *
 * Memories are written in time order, so an insert almost always lands at the end; a bulk load appends
 * unsorted and sorts once (`seal`).
 */
export class NamespaceTimeline {
  private ids: number[] = [];
  private times: number[] = [];
  private sorted = true;

  get size(): number {
    return this.ids.length;
  }

  /** Appends without keeping order (bulk loads); call `seal` before anything else. */
  append(docId: number, time: number): void {
    this.ids.push(docId);
    this.times.push(time);
    this.sorted = false;
  }

  /** Restores the order after `append`s. */
  seal(): void {
    if (this.sorted) return;
    const order = this.ids.map((_, i) => i).sort((a, b) => this.times[a]! - this.times[b]! || this.ids[a]! - this.ids[b]!);
    this.ids = order.map((i) => this.ids[i]!);
    this.times = order.map((i) => this.times[i]!);
    this.sorted = true;
  }

  insert(docId: number, time: number): void {
    const at = this.lowerBound(docId, time);
    this.ids.splice(at, 0, docId);
    this.times.splice(at, 0, time);
  }

  remove(docId: number, time: number): void {
    const at = this.lowerBound(docId, time);
    if (this.ids[at] === docId) {
      this.ids.splice(at, 1);
      this.times.splice(at, 1);
    }
  }

  /**
   * The nearest documents before and after the given one, each at most `windowMs` away, that `accepts`
   * takes; null where there is none. Documents the predicate refuses are stepped over. One binary
   * search serves both directions (a search asks this for 50 candidates).
   */
  neighbours(
    docId: number,
    time: number,
    windowMs: number,
    accepts: (docId: number) => boolean,
  ): { before: number | null; after: number | null } {
    const at = this.lowerBound(docId, time);
    return {
      before: this.nearest(at - 1, -1, docId, time, windowMs, accepts),
      after: this.nearest(this.ids[at] === docId ? at + 1 : at, 1, docId, time, windowMs, accepts),
    };
  }

  private nearest(
    from: number,
    step: -1 | 1,
    docId: number,
    time: number,
    windowMs: number,
    accepts: (docId: number) => boolean,
  ): number | null {
    for (let j = from; j >= 0 && j < this.ids.length; j += step) {
      if (Math.abs(this.times[j]! - time) > windowMs) return null;
      const id = this.ids[j]!;
      if (id !== docId && accepts(id)) return id;
    }
    return null;
  }

  /** First index whose (time, id) is not below (time, docId). */
  private lowerBound(docId: number, time: number): number {
    let lo = 0;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const t = this.times[mid]!;
      if (t < time || (t === time && this.ids[mid]! < docId)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
