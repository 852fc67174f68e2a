/**
 * The dense scan over 8-bit rows: out[r] ≈ dot(row r, q) for every row, reading only the 16-value blocks
 * where the query is not zero, with WebAssembly SIMD kernels.
 *
 * Why 8 bits: the scan is bound by memory traffic, and int8 rows move a quarter of what float rows do
 * (figures: docs/performance.md#int8-rows). Each row is quantised per group of 256 dimensions (one
 * scale per group: the largest magnitude maps to ±127), so a part of the vector with small values (the
 * semantic part of the default model beside its lexical features) keeps its own resolution. The query
 * is quantised per group to 16 bits, so the error is the rows' rounding alone: at most half a step per
 * value. Scores are products of integers (i32x4.dot_i16x8_s) scaled once per group and row.
 *
 * The binary first pass (`firstPass` + `exactOfEstimated`, for large tenants): a query group with most of
 * its blocks non-zero (the default model's semantic part, every group of a model like OpenAI's) costs 16
 * bytes a row per block in the full scan, 256 bytes a row per group. Each row also keeps the signs of
 * every group (32 bytes) and two numbers per group, its mean magnitude m and its count of positive
 * values. For such a group the first pass estimates the dot product as m · Σ q_i · sign(x_i), with the
 * query on 8 levels (3 bit planes, so the sum is popcounts of ANDs); the other groups are scanned
 * exactly as above. The caller keeps the best thousand rows by that score (`rowsAbove` lists the rows
 * over a threshold without a JavaScript loop over all of them) and asks for the exact product of their
 * estimated groups, which makes every score it returns exact; only which rows reach the exact step is
 * approximate (recall against the full scan is measured in `bench/`).
 *
 * Layout: block-major, so a query's few blocks are contiguous columns. [query (i16, 32 bytes a block) |
 * exact block list | exact groups | estimated groups' block list | their groups | sign-pass entries | query
 * bit planes | the scan's integer and float accumulators (one tile) | scores | first-pass scores | rows
 * (above a threshold, or to rescore) | their exact parts | int8 columns (16 bytes a row each) | scale columns (f32 a row, one per group) |
 * sign columns (32 bytes a row, one per group) | sign statistics (m, positives: two f32 a row, one pair
 * per group)]. The kernels (`int8-kernels.ts`) import this memory, one WebAssembly.Memory per tenant. Dimensions must be multiples of 16; the caller falls back to float rows
 * in JavaScript otherwise, or when WebAssembly SIMD is unavailable.
 */
import { DimensionPostings } from './dimension-postings.js';
import {
  BLOCK,
  EST_GROUPS_AT,
  EST_LIST_AT,
  GROUP_BLOCKS,
  GROUP_DIMS,
  GROUPS_AT,
  LIST_AT,
  MAX_BLOCKS,
  PAGE,
  PLANES,
  PLANES_AT,
  Q_AT,
  Q_MAX,
  SCORES_AT,
  SIGN_AT,
  SIGN_BYTES,
  SIGN_QUERY_STEPS,
  int8Module,
  wasm,
  type WasmMemory,
} from './int8-kernels.js';
import type { VectorRows } from './vector-rows.js';

/** A query group is estimated in the first pass when at least this many of its blocks are non-zero. */
const ESTIMATED_MIN_BLOCKS = GROUP_BLOCKS / 2;
/** A group whose rows hold fewer non-zero values than this on average is read through postings in the first pass. */
const SPARSE_ROW_VALUES = GROUP_DIMS / 16;

// ---- the matrix ------------------------------------------------------------------------------------

/** The first pass's scores: `exact` over the groups scanned exactly; `first` (null when no group was estimated) adds the estimates. */
export interface FirstPass {
  exact: Float32Array;
  first: Float32Array | null;
}

/** A growable block-major matrix of int8 rows with per-group scales and signs, in its own WebAssembly memory. */
export class Int8Matrix implements VectorRows {
  readonly dim: number;
  private readonly blocks: number;
  private readonly groups: number;
  private readonly memory: WasmMemory;
  private readonly scanFn: (n: number, groups: number, out: number) => void;
  private readonly signFn: (n: number, groups: number, exact: number, first: number) => void;
  private readonly gatherFn: (count: number, groups: number, cand: number, out: number) => void;
  private readonly aboveFn: (n: number, scores: number, threshold: number, out: number) => number;
  private capacity = 0;
  private columnsAt = SCORES_AT;
  private scalesAt = SCORES_AT;
  private signsAt = SCORES_AT;
  private statsAt = SCORES_AT;
  /** Estimated groups listed by the last `firstPass` (0: it scored every group exactly). */
  private estimatedGroups = 0;
  /** Whether slot i holds a row (written and not moved away since the last reset). */
  private live = new Uint8Array(0);
  private liveRows = 0;
  /** Non-zero values of the live rows, per group. */
  private readonly nonZero: Float64Array;
  /** Per group, the postings of its dimensions once a first pass wanted them (`DimensionPostings`). */
  private readonly postings: (DimensionPostings | null)[];
  private i8 = new Int8Array(0);
  private i16 = new Int16Array(0);
  private i32 = new Int32Array(0);
  private f32 = new Float32Array(0);
  private u8 = new Uint8Array(0);

  /** The whole WebAssembly memory (at least one 64 KiB page, whatever the rows) and the postings. */
  get bytes(): number {
    let b = this.memory.buffer.byteLength + this.live.byteLength;
    for (const p of this.postings) b += p ? p.bytes : 0;
    return b;
  }

  static supports(dim: number): boolean {
    return dim > 0 && dim % BLOCK === 0 && dim / BLOCK <= MAX_BLOCKS && int8Module() !== null;
  }

  constructor(dim: number) {
    const mod = int8Module();
    if (!mod || !Int8Matrix.supports(dim)) throw new Error(`no int8 SIMD scan for ${dim} dimensions`);
    this.dim = dim;
    this.blocks = dim / BLOCK;
    this.groups = Math.ceil(this.blocks / GROUP_BLOCKS);
    this.nonZero = new Float64Array(this.groups);
    this.postings = new Array<DimensionPostings | null>(this.groups).fill(null);
    this.memory = new wasm!.Memory({ initial: 1 });
    const { exports } = new wasm!.Instance(mod, { env: { memory: this.memory } });
    this.scanFn = exports.scan as Int8Matrix['scanFn'];
    this.signFn = exports.sign as Int8Matrix['signFn'];
    this.gatherFn = exports.gather as Int8Matrix['gatherFn'];
    this.aboveFn = exports.above as Int8Matrix['aboveFn'];
    this.views();
  }

  reserve(capacity: number, used: number): void {
    if (used === 0) this.reset();
    if (capacity <= this.capacity) return;
    capacity = Math.ceil(capacity / 4) * 4; // the scan reads rows four at a time
    // scores, first-pass scores, rows (above a threshold, or to rescore) and their exact parts: four f32/i32 per row
    const columnsAt = align64(SCORES_AT + capacity * 16);
    const scalesAt = align64(columnsAt + this.blocks * capacity * BLOCK);
    const signsAt = align64(scalesAt + this.groups * capacity * 4);
    const statsAt = align64(signsAt + this.groups * capacity * SIGN_BYTES);
    const bytes = statsAt + this.groups * capacity * 8;
    const have = this.memory.buffer.byteLength;
    if (bytes > have) this.memory.grow(Math.ceil((bytes - have) / PAGE));
    this.views();
    // Everything moves to higher addresses: the last region first, each region's last column first, so
    // nothing is overwritten before it has moved.
    const regions: [from: number, to: number, count: number, rowBytes: number][] = [
      [this.statsAt, statsAt, this.groups, 8],
      [this.signsAt, signsAt, this.groups, SIGN_BYTES],
      [this.scalesAt, scalesAt, this.groups, 4],
      [this.columnsAt, columnsAt, this.blocks, BLOCK],
    ];
    for (const [from, to, count, rowBytes] of regions) {
      for (let c = count - 1; c >= 0; c--) {
        const src = from + c * this.capacity * rowBytes;
        this.u8.copyWithin(to + c * capacity * rowBytes, src, src + used * rowBytes);
      }
    }
    this.columnsAt = columnsAt;
    this.scalesAt = scalesAt;
    this.signsAt = signsAt;
    this.statsAt = statsAt;
    this.capacity = capacity;
    const live = new Uint8Array(capacity);
    live.set(this.live.subarray(0, used));
    this.live = live;
  }

  /** Forgets every row (a full reload follows): slots are rewritten from 0. */
  private reset(): void {
    this.live.fill(0);
    this.liveRows = 0;
    this.nonZero.fill(0);
    this.postings.fill(null);
  }

  /** Takes row i's values in group g out of the non-zero counts and the postings (before it is overwritten). */
  private forget(i: number, g: number): void {
    if (this.live[i] !== 1) return;
    const from = g * GROUP_DIMS;
    const to = Math.min(this.dim, from + GROUP_DIMS);
    const postings = this.postings[g];
    for (let j = from; j < to; j++) {
      if (this.i8[this.at(j >> 4, i) + (j & 15)] === 0) continue;
      this.nonZero[g] = this.nonZero[g]! - 1;
      postings?.remove(j - from, i);
    }
  }

  set(i: number, bytes: Uint8Array): void {
    const row =
      bytes.byteOffset % 4 === 0 ? new Float32Array(bytes.buffer, bytes.byteOffset, this.dim) : new Float32Array(bytes.slice().buffer);
    for (let g = 0; g < this.groups; g++) {
      const from = g * GROUP_DIMS;
      const to = Math.min(this.dim, from + GROUP_DIMS);
      this.forget(i, g);
      const postings = this.postings[g];
      let max = 0;
      for (let j = from; j < to; j++) max = Math.max(max, Math.abs(row[j]!));
      const scale = max / 127;
      this.f32[this.scaleAt(g, i) / 4] = scale;
      const inv = scale > 0 ? 1 / scale : 0;
      const signs = this.signAt(g, i);
      this.u8.fill(0, signs, signs + SIGN_BYTES);
      let magnitude = 0;
      let positives = 0;
      for (let j = from; j < to; j++) {
        const v = Math.round(row[j]! * inv);
        this.i8[this.at(j >> 4, i) + (j & 15)] = v;
        if (v !== 0) {
          this.nonZero[g] = this.nonZero[g]! + 1;
          postings?.add(j - from, i, v);
        }
        magnitude += Math.abs(v);
        if (v > 0) {
          this.u8[signs + ((j - from) >> 3)]! |= 1 << ((j - from) & 7);
          positives++;
        }
      }
      const stats = this.statAt(g, i) / 4;
      this.f32[stats] = (magnitude * scale) / (to - from);
      this.f32[stats + 1] = positives;
    }
    if (this.live[i] !== 1) this.liveRows++;
    this.live[i] = 1;
  }

  move(from: number, to: number): void {
    for (let g = 0; g < this.groups; g++) {
      this.forget(to, g);
      const postings = this.postings[g];
      if (!postings || this.live[from] !== 1) continue;
      for (let j = g * GROUP_DIMS; j < Math.min(this.dim, (g + 1) * GROUP_DIMS); j++) {
        if (this.i8[this.at(j >> 4, from) + (j & 15)] !== 0) postings.rename(j - g * GROUP_DIMS, from, to);
      }
    }
    if (this.live[to] === 1) this.liveRows--;
    this.live[to] = this.live[from]!;
    this.live[from] = 0;
    for (let b = 0; b < this.blocks; b++) {
      const src = this.at(b, from);
      this.u8.copyWithin(this.at(b, to), src, src + BLOCK);
    }
    for (let g = 0; g < this.groups; g++) {
      this.f32[this.scaleAt(g, to) / 4] = this.f32[this.scaleAt(g, from) / 4]!;
      const signs = this.signAt(g, from);
      this.u8.copyWithin(this.signAt(g, to), signs, signs + SIGN_BYTES);
      this.u8.copyWithin(this.statAt(g, to), this.statAt(g, from), this.statAt(g, from) + 8);
    }
  }

  /** Row i as stored: each value rounded to its group's step. */
  row(i: number): Float32Array {
    const out = new Float32Array(this.dim);
    for (let j = 0; j < this.dim; j++) out[j] = this.i8[this.at(j >> 4, i) + (j & 15)]! * this.f32[this.scaleAt(j >> 8, i) / 4]!;
    return out;
  }

  /** dot(row i as stored, q). */
  dot(i: number, q: Float32Array): number {
    let s = 0;
    for (let g = 0; g < this.groups; g++) {
      const from = g * GROUP_DIMS;
      const to = Math.min(this.dim, from + GROUP_DIMS);
      let part = 0;
      for (let j = from; j < to; j++) part += this.i8[this.at(j >> 4, i) + (j & 15)]! * q[j]!;
      s += part * this.f32[this.scaleAt(g, i) / 4]!;
    }
    return s;
  }

  scan(q: Float32Array, n: number): Float32Array {
    const listed = this.listQuery(q, false);
    this.estimatedGroups = 0; // the query written now is not the last first pass's
    this.scanFn(n, listed.exactGroups, SCORES_AT);
    return new Float32Array(this.memory.buffer, SCORES_AT, n);
  }

  /**
   * The binary first pass over the first n rows: the groups where the query is dense are estimated from
   * the rows' signs, the others scanned exactly. Views valid until the next call or `reserve`.
   */
  firstPass(q: Float32Array, n: number): FirstPass {
    const listed = this.listQuery(q, true);
    this.estimatedGroups = listed.estimatedGroups;
    this.scanFn(n, listed.exactGroups, SCORES_AT);
    const exact = new Float32Array(this.memory.buffer, SCORES_AT, n);
    for (const { group, step } of listed.viaPostings) {
      const postings = this.postings[group]!;
      const from = group * GROUP_DIMS;
      for (let j = from; j < Math.min(this.dim, from + GROUP_DIMS); j++) {
        const v = this.i16[(Q_AT + (j >> 4) * 32) / 2 + (j & 15)]!;
        if (v !== 0) postings.accumulate(j - from, exact, v * step, this.f32, this.scaleAt(group, 0) / 4);
      }
    }
    if (listed.estimatedGroups === 0) return { exact, first: null };
    const firstAt = SCORES_AT + this.capacity * 4;
    this.signFn(n, listed.estimatedGroups, SCORES_AT, firstAt);
    return { exact, first: new Float32Array(this.memory.buffer, firstAt, n) };
  }

  /**
   * The rows whose score in `scores` (a view this matrix returned: a scan or a first pass) is at least
   * `threshold`, ascending. A view valid until the next call or `reserve`.
   */
  rowsAbove(scores: Float32Array, threshold: number): Int32Array {
    if (scores.buffer !== this.memory.buffer) throw new Error('rowsAbove takes a view of this matrix');
    const outAt = SCORES_AT + this.capacity * 8;
    const count = this.aboveFn(scores.length, scores.byteOffset, threshold, outAt);
    return new Int32Array(this.memory.buffer, outAt, count);
  }

  /**
   * The exact dot product of the given rows with the last first pass's query over the groups it
   * estimated (add it to `exact` of that pass for the row's full score). out[j] is rows[j]'s.
   */
  exactOfEstimated(rows: ArrayLike<number>): Float32Array {
    const count = rows.length;
    const candAt = SCORES_AT + this.capacity * 8;
    const outAt = SCORES_AT + this.capacity * 12;
    if (count > this.capacity) throw new RangeError(`${count} rows to rescore; the matrix holds ${this.capacity}`);
    for (let j = 0; j < count; j++) this.i32[candAt / 4 + j] = rows[j]!;
    this.gatherFn(count, this.estimatedGroups, candAt, outAt);
    return new Float32Array(this.memory.buffer, outAt, count);
  }

  /**
   * Writes the query: every non-zero group quantised to i16 (its largest magnitude → 32767), its non-zero
   * blocks listed for the exact scan or, with `estimate`, a dense group's blocks listed for the exact
   * rescoring and its bit planes and constants written for the sign pass.
   */
  private listQuery(
    q: Float32Array,
    estimate: boolean,
  ): { exactGroups: number; estimatedGroups: number; viaPostings: { group: number; step: number }[] } {
    const viaPostings: { group: number; step: number }[] = [];
    let exactBlocks = 0;
    let exactGroups = 0;
    let estBlocks = 0;
    let estGroups = 0;
    for (let g = 0; g < this.groups; g++) {
      const from = g * GROUP_DIMS;
      const to = Math.min(this.dim, from + GROUP_DIMS);
      let max = 0;
      for (let j = from; j < to; j++) max = Math.max(max, Math.abs(q[j]!));
      if (max === 0) continue;
      const step = max / Q_MAX;
      const nonZero: number[] = [];
      for (let b = from / BLOCK; b < to / BLOCK; b++) {
        let any = false;
        for (let j = 0; j < BLOCK; j++) {
          const v = Math.round(q[b * BLOCK + j]! / step);
          this.i16[(Q_AT + b * 32) / 2 + j] = v;
          if (v !== 0) any = true;
        }
        if (any) nonZero.push(b);
      }
      if (nonZero.length === 0) continue;
      // Rows mostly zero in the group (the lexical part): exact through postings, whatever the query.
      // Signs would say little there (a zero counts as a negative value).
      if (estimate && this.sparsePostings(g)) {
        viaPostings.push({ group: g, step });
        continue;
      }
      const estimated = estimate && nonZero.length >= ESTIMATED_MIN_BLOCKS;
      const [listAt, groupsAt, first] = estimated ? [EST_LIST_AT, EST_GROUPS_AT, estBlocks] : [LIST_AT, GROUPS_AT, exactBlocks];
      for (const [k, b] of nonZero.entries()) {
        this.i32[(listAt + (first + k) * 8) / 4] = this.at(b, 0);
        this.i32[(listAt + (first + k) * 8) / 4 + 1] = Q_AT + b * 32;
      }
      const entry = (groupsAt + (estimated ? estGroups : exactGroups) * 16) / 4;
      this.i32[entry] = this.scaleAt(g, 0);
      this.f32[entry + 1] = step;
      this.i32[entry + 2] = first;
      this.i32[entry + 3] = first + nonZero.length;
      if (estimated) {
        this.writeSignEntry(estGroups, g, q, from, to);
        estBlocks += nonZero.length;
        estGroups++;
      } else {
        exactBlocks += nonZero.length;
        exactGroups++;
      }
    }
    return { exactGroups, estimatedGroups: estGroups, viaPostings };
  }

  /**
   * Group g's postings when its rows are mostly zero (built from the columns on first use, then kept
   * current by `set` and `move`); null for a group whose rows are dense.
   */
  private sparsePostings(g: number): DimensionPostings | null {
    if (this.liveRows === 0 || this.nonZero[g]! / this.liveRows >= SPARSE_ROW_VALUES) return null;
    let postings = this.postings[g];
    if (postings) return postings;
    const from = g * GROUP_DIMS;
    const to = Math.min(this.dim, from + GROUP_DIMS);
    postings = new DimensionPostings(to - from);
    for (let i = 0; i < this.capacity; i++) {
      if (this.live[i] !== 1) continue;
      for (let j = from; j < to; j++) {
        const v = this.i8[this.at(j >> 4, i) + (j & 15)]!;
        if (v !== 0) postings.add(j - from, i, v);
      }
    }
    this.postings[g] = postings;
    return postings;
  }

  /**
   * The sign pass's entry for query group g: q_i ≈ lo + Δ·u_i with u_i in 0..2^PLANES − 1, written as bit planes
   * in the rows' sign layout, so that Σ q_i·s_i (s_i = ±1, positive where the row's bit is set) ≈
   * A·positives + B·Σ_p 2^p·popcount(signs ∧ plane p) + C, with A = 2·lo, B = 2·Δ, C = −Σ(lo + Δ·u_i).
   */
  private writeSignEntry(slot: number, g: number, q: Float32Array, from: number, to: number): void {
    let lo = Infinity;
    let hi = -Infinity;
    for (let j = from; j < to; j++) {
      lo = Math.min(lo, q[j]!);
      hi = Math.max(hi, q[j]!);
    }
    const delta = (hi - lo) / SIGN_QUERY_STEPS;
    const planes = PLANES_AT + slot * PLANES * SIGN_BYTES;
    this.u8.fill(0, planes, planes + PLANES * SIGN_BYTES);
    let sum = 0;
    for (let j = from; j < to; j++) {
      const u = delta > 0 ? Math.round((q[j]! - lo) / delta) : 0;
      sum += lo + delta * u;
      for (let p = 0; p < PLANES; p++) if ((u >> p) & 1) this.u8[planes + p * SIGN_BYTES + ((j - from) >> 3)]! |= 1 << ((j - from) & 7);
    }
    const entry = (SIGN_AT + slot * 32) / 4;
    this.i32[entry] = this.signAt(g, 0);
    this.i32[entry + 1] = this.statAt(g, 0);
    this.i32[entry + 2] = planes;
    this.f32[entry + 3] = 2 * lo;
    this.f32[entry + 4] = 2 * delta;
    this.f32[entry + 5] = -sum;
  }

  /** Byte address of row i's block b. */
  private at(b: number, i: number): number {
    return this.columnsAt + (b * this.capacity + i) * BLOCK;
  }

  /** Byte address of row i's scale in group g. */
  private scaleAt(g: number, i: number): number {
    return this.scalesAt + (g * this.capacity + i) * 4;
  }

  /** Byte address of row i's signs in group g. */
  private signAt(g: number, i: number): number {
    return this.signsAt + (g * this.capacity + i) * SIGN_BYTES;
  }

  /** Byte address of row i's sign statistics (mean magnitude, positives) in group g. */
  private statAt(g: number, i: number): number {
    return this.statsAt + (g * this.capacity + i) * 8;
  }

  /** Views over the memory (growing it detaches the old ones). */
  private views(): void {
    const buf = this.memory.buffer;
    this.i8 = new Int8Array(buf);
    this.u8 = new Uint8Array(buf);
    this.i16 = new Int16Array(buf);
    this.i32 = new Int32Array(buf);
    this.f32 = new Float32Array(buf);
  }
}

function align64(n: number): number {
  return Math.ceil(n / 64) * 64;
}
