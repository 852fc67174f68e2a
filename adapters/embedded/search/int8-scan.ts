/**
 * The dense scan over 8-bit rows: out[r] ≈ dot(row r, q) for every row, reading only the 16-value blocks
 * where the query is not zero, with WebAssembly SIMD kernels.
 *
 * Why 8 bits: the scan is bound by memory traffic (float rows at 10k × 1,280 dims stream ~24 MB per
 * query), and int8 rows move a quarter of it. Each row is quantised per group of 256 dimensions (one
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
 * per group)]. The module is assembled from its bytes (`wasm-assembly.ts`) and imports its memory, one
 * WebAssembly.Memory per tenant. Dimensions must be multiples of 16; the caller falls back to float rows
 * in JavaScript otherwise, or when WebAssembly SIMD is unavailable.
 */
import { DimensionPostings } from './dimension-postings.js';
import type { VectorRows } from './vector-rows.js';
import {
  BR_IF_OUT, END_LOOP, F32X4_ADD, F32X4_CONVERT_I32X4_S, F32X4_MUL, F32X4_SPLAT, F32_ADD, F32_CONVERT_I32_S, F32_GE, F32_MUL,
  I16X8_EXTADD_PAIRWISE_I8X16_U, I16X8_EXTEND_HIGH_I8X16_S, I16X8_EXTEND_LOW_I8X16_S, I32X4_ADD, I32X4_DOT_I16X8_S,
  I32X4_EXTADD_PAIRWISE_I16X8_U, I32_ADD, I32_AND, I32_GE_U, I32_LT_U, I32_SHL, I32_SHR_U, I32_SUB, I8X16_ADD, I8X16_POPCNT,
  I8X16_SHL, END, IF, LOOP, SELECT, TYPE_F32, TYPE_I32, TYPE_V128, V128_AND, V128_ZERO, f32Load, f32Store, f32x4Extract, get, i32,
  i32Load, i32Store, i32x4Extract, moduleBytes, set, shuffle32, v128Load, v128Store, type WasmFunction,
} from './wasm-assembly.js';

const BLOCK = 16; // values per block (one v128 of int8)
const GROUP_BLOCKS = 16; // blocks per quantisation group (256 dimensions)
const GROUP_DIMS = BLOCK * GROUP_BLOCKS;
const MAX_BLOCKS = 256; // queries up to 4,096 dimensions
const MAX_GROUPS = MAX_BLOCKS / GROUP_BLOCKS;
const SIGN_BYTES = GROUP_DIMS / 8; // one bit per dimension of a group
/**
 * Bits of the query in the sign pass. Each plane costs two emulated popcounts a row (x64 has no byte
 * popcount before AVX-512): at 100k rows 4 planes took ~1.6 ms, 3 planes ~1.1, 2 planes ~0.9, with
 * recall@100 of the rescored result against the full scan 0.9998, 0.9997 and 0.9959 (synthetic corpus).
 */
const PLANES = 3;
/** The query's levels in the sign pass (0 … 2^PLANES − 1 steps above its smallest value). */
export const SIGN_QUERY_STEPS = 2 ** PLANES - 1;
/** A query group is estimated in the first pass when at least this many of its blocks are non-zero. */
const ESTIMATED_MIN_BLOCKS = GROUP_BLOCKS / 2;
/** A group whose rows hold fewer non-zero values than this on average is read through postings in the first pass. */
const SPARSE_ROW_VALUES = GROUP_DIMS / 16;

const Q_AT = 0; // i16 query: two v128 per block
const LIST_AT = Q_AT + MAX_BLOCKS * 32; // per listed block: column address, query address
const GROUPS_AT = LIST_AT + MAX_BLOCKS * 8; // per listed group: scale column address, query scale, first, end
const EST_LIST_AT = GROUPS_AT + MAX_GROUPS * 16; // the same two lists for the estimated groups (exact rescoring)
const EST_GROUPS_AT = EST_LIST_AT + MAX_BLOCKS * 8;
const SIGN_AT = EST_GROUPS_AT + MAX_GROUPS * 16; // per estimated group: sign column, stats column, planes, A, B, C
const PLANES_AT = SIGN_AT + MAX_GROUPS * 32; // per estimated group: PLANES planes of 32 bytes
const TILE = 256; // rows per tile of the scan
const ACC_I_AT = PLANES_AT + MAX_GROUPS * PLANES * SIGN_BYTES; // per tile row: i32x4 accumulator of the current group
const ACC_F_AT = ACC_I_AT + TILE * 16; // per tile row: f32x4 accumulator
const SCORES_AT = ACC_F_AT + TILE * 16;
const PAGE = 65536;
const Q_MAX = 32767;

// ---- the scan ----------------------------------------------------------------------------------------

// The scan walks the rows in tiles of TILE rows. Within a tile it streams each listed column's segment
// (TILE × 16 contiguous bytes) into per-row integer accumulators kept in memory (they stay in the L1
// cache), four rows per step; at the end of each group the accumulators are scaled into per-row float
// accumulators, and at the end of the tile the four lanes of each go to out. Reading one column segment
// at a time keeps the memory access sequential: scoring every listed block of a row before the next row
// meant ~40 interleaved streams, which the hardware prefetchers did not follow (measured: at 100k rows it
// was little faster than the float scan). Rows are processed up to n rounded up to 4 (the capacity is a
// multiple of 4; scores past n are ignored).
// Parameters: 0 rows, 1 listed groups, 2 out pointer. Locals (i32): 3 tile start, 4 tile bytes (rows × 16),
// 5 group index, 6 group entry, 7 block index, 8 block end, 9 block entry, 10 column segment address,
// 11 byte offset in the tile, 12 scale address; (f32) 13 query step; (v128) 14 row block, 15/16 query
// halves, 17 accumulator.
const P_N = 0, P_GROUPS = 1, P_OUT = 2;
const L_T0 = 3, L_TB = 4, L_GI = 5, L_GP = 6, L_BI = 7, L_BEND = 8, L_LP = 9, L_COL = 10, L_X = 11, L_SC = 12;
const L_QS = 13;
const L_V = 14, L_QLO = 15, L_QHI = 16, L_A = 17;
const LANES = [0, 1, 2, 3];

/** for (x = 0; x < tile bytes; x += step) { body } */
const overTile = (step: number, loopBody: number[]) => [
  ...i32(0), ...set(L_X),
  ...LOOP,
  ...get(L_X), ...get(L_TB), I32_GE_U, ...BR_IF_OUT,
  ...loopBody,
  ...get(L_X), ...i32(step), I32_ADD, ...set(L_X),
  ...END_LOOP,
];

function scanFunction(): WasmFunction {
  // accI[row x + k] += dot(low half, qlo) + dot(high half, qhi), for the four rows of this step
  const rowDot = (k: number) => [
    ...get(L_COL), ...get(L_X), I32_ADD, ...v128Load(16 * k), ...set(L_V),
    ...get(L_X), ...i32(ACC_I_AT), I32_ADD,
    ...get(L_X), ...i32(ACC_I_AT), I32_ADD, ...v128Load(16 * k),
    ...get(L_V), ...I16X8_EXTEND_LOW_I8X16_S, ...get(L_QLO), ...I32X4_DOT_I16X8_S, ...I32X4_ADD,
    ...get(L_V), ...I16X8_EXTEND_HIGH_I8X16_S, ...get(L_QHI), ...I32X4_DOT_I16X8_S, ...I32X4_ADD,
    ...v128Store(16 * k),
  ];
  const zero = (at: number) => overTile(16, [...get(L_X), ...i32(at), I32_ADD, ...V128_ZERO, ...v128Store(0)]);
  const code = [
    ...i32(0), ...set(L_T0),
    ...LOOP,
    ...get(L_T0), ...get(P_N), I32_GE_U, ...BR_IF_OUT,
    // tile bytes = min(TILE, n - t0) rounded up to 4 rows, × 16
    ...get(P_N), ...get(L_T0), I32_SUB, ...i32(TILE), ...get(P_N), ...get(L_T0), I32_SUB, ...i32(TILE), I32_LT_U, SELECT,
    ...i32(3), I32_ADD, ...i32(-4), I32_AND, ...i32(4), I32_SHL, ...set(L_TB),
    ...zero(ACC_F_AT),
    ...i32(0), ...set(L_GI),
    ...LOOP,
    ...get(L_GI), ...get(P_GROUPS), I32_GE_U, ...BR_IF_OUT,
    ...get(L_GI), ...i32(4), I32_SHL, ...i32(GROUPS_AT), I32_ADD, ...set(L_GP),
    ...get(L_GP), ...i32Load(8), ...set(L_BI),
    ...get(L_GP), ...i32Load(12), ...set(L_BEND),
    ...zero(ACC_I_AT),
    ...LOOP,
    ...get(L_BI), ...get(L_BEND), I32_GE_U, ...BR_IF_OUT,
    ...get(L_BI), ...i32(3), I32_SHL, ...i32(LIST_AT), I32_ADD, ...set(L_LP),
    ...get(L_LP), ...i32Load(0), ...get(L_T0), ...i32(4), I32_SHL, I32_ADD, ...set(L_COL),
    ...get(L_LP), ...i32Load(4), ...v128Load(0), ...set(L_QLO),
    ...get(L_LP), ...i32Load(4), ...v128Load(16), ...set(L_QHI),
    ...overTile(64, LANES.flatMap(rowDot)),
    ...get(L_BI), ...i32(1), I32_ADD, ...set(L_BI),
    ...END_LOOP,
    // accF[row] += float(accI[row]) × (the row's scale in the group × the group's query step)
    ...get(L_GP), ...i32Load(0), ...get(L_T0), ...i32(2), I32_SHL, I32_ADD, ...set(L_SC),
    ...get(L_GP), ...f32Load(4), ...set(L_QS),
    ...overTile(16, [
      ...get(L_X), ...i32(ACC_F_AT), I32_ADD,
      ...get(L_X), ...i32(ACC_F_AT), I32_ADD, ...v128Load(0),
      ...get(L_X), ...i32(ACC_I_AT), I32_ADD, ...v128Load(0), ...F32X4_CONVERT_I32X4_S,
      ...get(L_SC), ...get(L_X), ...i32(2), I32_SHR_U, I32_ADD, ...f32Load(0), ...get(L_QS), F32_MUL, ...F32X4_SPLAT,
      ...F32X4_MUL, ...F32X4_ADD, ...v128Store(0),
    ]),
    ...get(L_GI), ...i32(1), I32_ADD, ...set(L_GI),
    ...END_LOOP,
    // out[t0 + row] = the four lanes of accF[row]
    ...overTile(16, [
      ...get(P_OUT), ...get(L_T0), ...i32(2), I32_SHL, I32_ADD, ...get(L_X), ...i32(2), I32_SHR_U, I32_ADD,
      ...get(L_X), ...i32(ACC_F_AT), I32_ADD, ...v128Load(0), ...set(L_A),
      ...LANES.flatMap((k) => [...get(L_A), ...f32x4Extract(k), ...(k > 0 ? [F32_ADD] : [])]),
      ...f32Store(0),
    ]),
    ...get(L_T0), ...i32(TILE), I32_ADD, ...set(L_T0),
    ...END_LOOP,
  ];
  return { name: 'scan', params: [TYPE_I32, TYPE_I32, TYPE_I32], locals: [[10, TYPE_I32], [1, TYPE_F32], [4, TYPE_V128]], code };
}

// ---- the sign pass -----------------------------------------------------------------------------------

/** The sum of the four i32 lanes of the v128 on the stack, kept in local `tmp`. */
const laneSum = (tmp: number) => [...set(tmp), ...LANES.flatMap((k) => [...get(tmp), ...i32x4Extract(k), ...(k > 0 ? [I32_ADD] : [])])];

// first[r] = exact[r] + Σ over estimated groups of m · (A · positives + B · S + C),
// S = Σ_p 2^p · popcount(signs AND plane p). Group by group (usually one), so a group's planes and
// constants stay in locals while its rows stream past: the first group reads exact, the others first.
// Four rows a step: their lane sums are added as one transposed i32x4 and the rest is f32x4 arithmetic
// (a row at a time, extracting lanes and scalar arithmetic were a third of the pass). Rows are
// processed up to n rounded up to 4, as in the scan.
// Parameters: 0 rows, 1 groups, 2 exact pointer, 3 first pointer. Locals (i32): 4 row, 5 group, 6 entry,
// 7 sign address, 8 stats address, 9 source pointer; (v128) 10–12 A, B, C splatted, 13/14 a row's signs,
// 15–18 the four rows' counts, 19–(18 + 2 × PLANES) the planes' low and high halves, 27/28 stats.
function signFunction(): WasmFunction {
  const R = 4, G = 5, E = 6, SA = 7, ST = 8, SRC = 9, A = 10, B = 11, C = 12, C0 = 13, C1 = 14, W = 15, PL = 19, X = 27, Y = 28;
  // popcount(c0 AND plane p, low half) + popcount(c1 AND plane p, high half): per-lane counts of plane p
  const planeCount = (p: number) => [
    ...get(C0), ...get(PL + 2 * p), ...V128_AND, ...I8X16_POPCNT,
    ...get(C1), ...get(PL + 2 * p + 1), ...V128_AND, ...I8X16_POPCNT,
    ...I8X16_ADD,
  ];
  // W+k = the weighted counts of row r+k summed into four i32 lanes (each lane at most 16 × 7 = 112 a
  // byte before widening, so the bytes never carry)
  const rowCounts = (k: number) => [
    ...get(SA), ...v128Load(k * SIGN_BYTES), ...set(C0),
    ...get(SA), ...v128Load(k * SIGN_BYTES + 16), ...set(C1),
    ...planeCount(0),
    ...Array.from({ length: PLANES - 1 }, (_, i) => i + 1).flatMap((p) => [...planeCount(p), ...i32(p), ...I8X16_SHL, ...I8X16_ADD]),
    ...I16X8_EXTADD_PAIRWISE_I8X16_U, ...I32X4_EXTADD_PAIRWISE_I16X8_U, ...set(W + k),
  ];
  // [Σ W, Σ W+1, Σ W+2, Σ W+3]: pairwise lane sums, then the pairs of pairs
  const pairSums = (a: number, b: number) => [
    ...get(a), ...get(b), ...shuffle32([0, 4, 1, 5]), ...get(a), ...get(b), ...shuffle32([2, 6, 3, 7]), ...I32X4_ADD,
  ];
  const code = [
    ...i32(0), ...set(G),
    ...LOOP,
    ...get(G), ...get(1), I32_GE_U, ...BR_IF_OUT,
    ...get(G), ...i32(5), I32_SHL, ...i32(SIGN_AT), I32_ADD, ...set(E),
    ...get(E), ...f32Load(12), ...F32X4_SPLAT, ...set(A),
    ...get(E), ...f32Load(16), ...F32X4_SPLAT, ...set(B),
    ...get(E), ...f32Load(20), ...F32X4_SPLAT, ...set(C),
    ...Array.from({ length: PLANES }, (_, p) => p).flatMap((p) => [
      ...get(E), ...i32Load(8), ...v128Load(p * SIGN_BYTES), ...set(PL + 2 * p),
      ...get(E), ...i32Load(8), ...v128Load(p * SIGN_BYTES + 16), ...set(PL + 2 * p + 1),
    ]),
    ...get(E), ...i32Load(0), ...set(SA),
    ...get(E), ...i32Load(4), ...set(ST),
    ...get(2), ...get(3), ...get(G), ...i32(0), 0x46 /* i32.eq */, SELECT, ...set(SRC), // exact for the first group
    ...i32(0), ...set(R),
    ...LOOP,
    ...get(R), ...get(0), I32_GE_U, ...BR_IF_OUT,
    ...[0, 1, 2, 3].flatMap(rowCounts),
    // stats of the four rows: [m0 p0 m1 p1] [m2 p2 m3 p3]
    ...get(ST), ...v128Load(0), ...set(X),
    ...get(ST), ...v128Load(16), ...set(Y),
    // first[r..r+3] = source[r..r+3] + m × (A × positives + B × S + C)
    ...get(3), ...get(R), ...i32(2), I32_SHL, I32_ADD,
    ...get(SRC), ...get(R), ...i32(2), I32_SHL, I32_ADD, ...v128Load(0),
    ...get(X), ...get(Y), ...shuffle32([0, 2, 4, 6]),
    ...get(A), ...get(X), ...get(Y), ...shuffle32([1, 3, 5, 7]), ...F32X4_MUL,
    ...get(B),
    ...pairSums(W, W + 1), ...pairSums(W + 2, W + 3), ...set(X), ...set(Y), // Y = rows 0–1, X = rows 2–3
    ...get(Y), ...get(X), ...shuffle32([0, 1, 4, 5]), ...get(Y), ...get(X), ...shuffle32([2, 3, 6, 7]), ...I32X4_ADD,
    ...F32X4_CONVERT_I32X4_S, ...F32X4_MUL, ...F32X4_ADD,
    ...get(C), ...F32X4_ADD,
    ...F32X4_MUL, ...F32X4_ADD,
    ...v128Store(0),
    ...get(SA), ...i32(4 * SIGN_BYTES), I32_ADD, ...set(SA),
    ...get(ST), ...i32(32), I32_ADD, ...set(ST),
    ...get(R), ...i32(4), I32_ADD, ...set(R),
    ...END_LOOP,
    ...get(G), ...i32(1), I32_ADD, ...set(G),
    ...END_LOOP,
  ];
  return { name: 'sign', params: [TYPE_I32, TYPE_I32, TYPE_I32, TYPE_I32], locals: [[6, TYPE_I32], [19, TYPE_V128]], code };
}

// ---- the rows above a threshold --------------------------------------------------------------------------

// Writes to out, ascending, every row r < n with scores[r] >= threshold; returns how many.
// Parameters: 0 rows, 1 scores pointer, 2 threshold (f32), 3 out pointer. Locals (i32): 4 row, 5 count.
function aboveFunction(): WasmFunction {
  const R = 4, COUNT = 5;
  const code = [
    ...i32(0), ...set(R),
    ...i32(0), ...set(COUNT),
    ...LOOP,
    ...get(R), ...get(0), I32_GE_U, ...BR_IF_OUT,
    ...get(1), ...get(R), ...i32(2), I32_SHL, I32_ADD, ...f32Load(0), ...get(2), F32_GE,
    ...IF,
    ...get(3), ...get(COUNT), ...i32(2), I32_SHL, I32_ADD, ...get(R), ...i32Store(0),
    ...get(COUNT), ...i32(1), I32_ADD, ...set(COUNT),
    END,
    ...get(R), ...i32(1), I32_ADD, ...set(R),
    ...END_LOOP,
    ...get(COUNT),
  ];
  return { name: 'above', params: [TYPE_I32, TYPE_I32, TYPE_F32, TYPE_I32], results: [TYPE_I32], locals: [[2, TYPE_I32]], code };
}

// ---- the exact rescoring of listed rows ----------------------------------------------------------------

// out[j] = Σ over the estimated groups of dot(row cand[j], q), exactly as the scan computes a group.
// Parameters: 0 count, 1 groups, 2 cand pointer, 3 out pointer. Locals (i32): 4 j, 5 row, 6 group, 7 group
// entry, 8 block, 9 block end, 10 block entry, 11 column address; (f32) 12 total; (v128) 13 accumulator,
// 14 row block, 15 lane-sum scratch (as i32x4).
function gatherFunction(): WasmFunction {
  const J = 4, ROW = 5, G = 6, GE = 7, B = 8, BEND = 9, LE = 10, COL = 11, TOTAL = 12, ACC = 13, V = 14, T = 15;
  const code = [
    ...i32(0), ...set(J),
    ...LOOP,
    ...get(J), ...get(0), I32_GE_U, ...BR_IF_OUT,
    ...get(2), ...get(J), ...i32(2), I32_SHL, I32_ADD, ...i32Load(0), ...set(ROW),
    0x43, 0, 0, 0, 0, ...set(TOTAL),
    ...i32(0), ...set(G),
    ...LOOP,
    ...get(G), ...get(1), I32_GE_U, ...BR_IF_OUT,
    ...get(G), ...i32(4), I32_SHL, ...i32(EST_GROUPS_AT), I32_ADD, ...set(GE),
    ...get(GE), ...i32Load(8), ...set(B),
    ...get(GE), ...i32Load(12), ...set(BEND),
    ...V128_ZERO, ...set(ACC),
    ...LOOP,
    ...get(B), ...get(BEND), I32_GE_U, ...BR_IF_OUT,
    ...get(B), ...i32(3), I32_SHL, ...i32(EST_LIST_AT), I32_ADD, ...set(LE),
    ...get(LE), ...i32Load(0), ...get(ROW), ...i32(4), I32_SHL, I32_ADD, ...set(COL),
    ...get(COL), ...v128Load(0), ...set(V),
    ...get(ACC),
    ...get(V), ...I16X8_EXTEND_LOW_I8X16_S, ...get(LE), ...i32Load(4), ...v128Load(0), ...I32X4_DOT_I16X8_S, ...I32X4_ADD,
    ...get(V), ...I16X8_EXTEND_HIGH_I8X16_S, ...get(LE), ...i32Load(4), ...v128Load(16), ...I32X4_DOT_I16X8_S, ...I32X4_ADD,
    ...set(ACC),
    ...get(B), ...i32(1), I32_ADD, ...set(B),
    ...END_LOOP,
    // total += float(Σ lanes) × the row's scale in the group × the group's query step
    ...get(TOTAL),
    ...get(ACC), ...laneSum(T), F32_CONVERT_I32_S,
    ...get(GE), ...i32Load(0), ...get(ROW), ...i32(2), I32_SHL, I32_ADD, ...f32Load(0), F32_MUL,
    ...get(GE), ...f32Load(4), F32_MUL,
    F32_ADD, ...set(TOTAL),
    ...get(G), ...i32(1), I32_ADD, ...set(G),
    ...END_LOOP,
    ...get(3), ...get(J), ...i32(2), I32_SHL, I32_ADD, ...get(TOTAL), ...f32Store(0),
    ...get(J), ...i32(1), I32_ADD, ...set(J),
    ...END_LOOP,
  ];
  return { name: 'gather', params: [TYPE_I32, TYPE_I32, TYPE_I32, TYPE_I32], locals: [[8, TYPE_I32], [1, TYPE_F32], [3, TYPE_V128]], code };
}

/** The part of the WebAssembly JS API used here (the project's TypeScript libs do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

let compiled: object | null | undefined;

/** The compiled kernels, or null where WebAssembly SIMD is not available. */
export function int8Module(): object | null {
  if (compiled !== undefined) return compiled;
  try {
    const bytes = moduleBytes([scanFunction(), signFunction(), gatherFunction(), aboveFunction()]);
    compiled = wasm && wasm.validate(bytes) ? new wasm.Module(bytes) : null;
  } catch {
    compiled = null;
  }
  return compiled;
}

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
    const row = bytes.byteOffset % 4 === 0 ? new Float32Array(bytes.buffer, bytes.byteOffset, this.dim) : new Float32Array(bytes.slice().buffer);
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
  private listQuery(q: Float32Array, estimate: boolean): { exactGroups: number; estimatedGroups: number; viaPostings: { group: number; step: number }[] } {
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
      const estimated = estimate && nonZero.length >= ESTIMATED_MIN_BLOCKS;
      if (estimate && !estimated && this.sparsePostings(g)) {
        viaPostings.push({ group: g, step });
        continue;
      }
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
