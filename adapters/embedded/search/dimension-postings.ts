/**
 * For one group of dimensions whose rows are mostly zero (the hashed lexical part of the default model:
 * a memory has a value in a few of 1,024 buckets), the rows holding a non-zero int8 value in each
 * dimension, with that value. The dense scan reads a query's blocks for every row, 16 bytes a block
 * whether the row has anything there or not, which made a query's lexical blocks a large part of the first
 * pass; through these lists the same exact products cost one step per row that has the term's bucket
 * (figures: docs/performance.md#lexical-dimensions-through-postings). Row numbers are the matrix's; `Int8Matrix` keeps the lists in step
 * with its writes and moves.
 */
export class DimensionPostings {
  private readonly rows: Int32Array[];
  private readonly values: Int8Array[];
  private readonly counts: Int32Array;

  constructor(dims: number) {
    this.rows = Array.from({ length: dims }, () => new Int32Array(4));
    this.values = Array.from({ length: dims }, () => new Int8Array(4));
    this.counts = new Int32Array(dims);
  }

  /** Approximate bytes held (for the cache budget). */
  get bytes(): number {
    let b = this.counts.byteLength;
    for (const r of this.rows) b += r.byteLength * 1.25;
    return b;
  }

  add(d: number, row: number, value: number): void {
    const n = this.counts[d]!;
    if (n === this.rows[d]!.length) {
      const rows = new Int32Array(n * 2);
      rows.set(this.rows[d]!);
      this.rows[d] = rows;
      const values = new Int8Array(n * 2);
      values.set(this.values[d]!);
      this.values[d] = values;
    }
    this.rows[d]![n] = row;
    this.values[d]![n] = value;
    this.counts[d] = n + 1;
  }

  /** Removes row's entry in dimension d (order within a list is not kept). */
  remove(d: number, row: number): void {
    const at = this.find(d, row);
    if (at < 0) return;
    const last = this.counts[d]! - 1;
    this.rows[d]![at] = this.rows[d]![last]!;
    this.values[d]![at] = this.values[d]![last]!;
    this.counts[d] = last;
  }

  /** Row `from`'s entry in dimension d now belongs to row `to`. */
  rename(d: number, from: number, to: number): void {
    const at = this.find(d, from);
    if (at >= 0) this.rows[d]![at] = to;
  }

  /** out[row] += factor × value × scales[scalesAt + row] for every entry of dimension d (scales: the group's row scales). */
  accumulate(d: number, out: Float32Array, factor: number, scales: Float32Array, scalesAt: number): void {
    const rows = this.rows[d]!;
    const values = this.values[d]!;
    const n = this.counts[d]!;
    for (let j = 0; j < n; j++) {
      const row = rows[j]!;
      out[row] = out[row]! + factor * values[j]! * scales[scalesAt + row]!;
    }
  }

  private find(d: number, row: number): number {
    const rows = this.rows[d]!;
    const n = this.counts[d]!;
    for (let j = 0; j < n; j++) if (rows[j] === row) return j;
    return -1;
  }
}
