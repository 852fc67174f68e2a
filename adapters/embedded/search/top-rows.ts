/**
 * The `count` best rows of a dense scan that `accepts` takes, in no particular order: higher score first,
 * ties by the lower `keys[row]` (the document id, so two processes whose rows are in different orders
 * agree) or, without keys, by the lower row. The candidate step of the dense channel: a hundred or a
 * thousand rows out of up to a few hundred thousand.
 *
 * A bounded heap (thousands of pushes while its floor rises) and a typed array's native sort were both too
 * slow for a thousand of 100k rows (figures: docs/performance.md#candidate-selection-without-a-heap).
 * Instead a strided sample sets a threshold that about
 * three times `count` rows reach, `above` lists those (the int8 matrix does it in WebAssembly), the filter
 * runs on them alone, and a selection (quickselect) among their scores finds the cut. When the filter or
 * an unlucky sample leaves fewer than `count` over the threshold, the rows are listed again without it,
 * so the answer never depends on the sample.
 */
export function topRows(
  scores: Float32Array,
  count: number,
  accepts: (row: number) => boolean,
  above: (threshold: number) => ArrayLike<number> = (threshold) => rowsAtLeast(scores, threshold),
  keys?: Int32Array,
): Int32Array {
  const threshold = sampledThreshold(scores, count);
  let found = accepted(scores, above(threshold), accepts);
  if (found.rows.length < count && threshold > -Infinity) found = accepted(scores, above(-Infinity), accepts);
  const { rows, values } = found;
  if (rows.length <= count) return rows;
  const cut = kthLargest(values.slice(), count);
  // Fewer than `count` score over the cut; ties at the cut fill the rest, lowest keys first.
  const out = new Int32Array(count);
  let kept = 0;
  const tied: number[] = [];
  for (let j = 0; j < rows.length; j++) {
    if (values[j]! > cut) out[kept++] = rows[j]!;
    else if (values[j] === cut) tied.push(rows[j]!);
  }
  if (keys) tied.sort((a, b) => keys[a]! - keys[b]!);
  for (let j = 0; kept < count; j++) out[kept++] = tied[j]!;
  return out;
}

/** The rows of `scores` at or over `threshold`, ascending (the JavaScript `above`). */
function rowsAtLeast(scores: Float32Array, threshold: number): Int32Array {
  let rows = new Int32Array(256);
  let size = 0;
  for (let i = 0; i < scores.length; i++) {
    if (!(scores[i]! >= threshold)) continue;
    if (size === rows.length) {
      const more = new Int32Array(size * 2);
      more.set(rows);
      rows = more;
    }
    rows[size++] = i;
  }
  return rows.subarray(0, size);
}

/**
 * A score about 3 × count of the rows reach, read off every stride-th row: the 16th best of the sample,
 * so the count that reaches it varies by about a quarter (a rank near the top of a sample varies by
 * 1/√rank), and falling short of `count` (which lists every row again) is rare. -Infinity when the
 * sample would be too thin.
 */
function sampledThreshold(scores: Float32Array, count: number): number {
  const rank = 16;
  const stride = Math.floor((3 * count) / rank);
  if (stride < 2) return -Infinity;
  const sample = new Float64Array(Math.ceil(scores.length / stride));
  if (sample.length <= rank) return -Infinity;
  for (let i = 0, j = 0; i < scores.length; i += stride) sample[j++] = scores[i]!;
  return kthLargest(sample, rank);
}

/** The listed rows `accepts` takes, copied out of the list (it may be a view the next listing reuses). */
function accepted(
  scores: Float32Array,
  listed: ArrayLike<number>,
  accepts: (row: number) => boolean,
): { rows: Int32Array; values: Float64Array } {
  const rows = new Int32Array(listed.length);
  const values = new Float64Array(listed.length);
  let size = 0;
  for (let j = 0; j < listed.length; j++) {
    const i = listed[j]!;
    if (!accepts(i)) continue;
    rows[size] = i;
    values[size++] = scores[i]!;
  }
  return { rows: rows.subarray(0, size), values: values.subarray(0, size) };
}

/**
 * The k-th largest of `values` (1-based; reorders them): Hoare's selection with a median-of-three pivot,
 * linear on average. Scores are continuous, so its quadratic worst case needs an adversary it never meets.
 */
export function kthLargest(values: Float64Array, k: number): number {
  const target = values.length - k; // its index in ascending order
  let lo = 0;
  let hi = values.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const a = values[lo]!,
      b = values[mid]!,
      c = values[hi]!;
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i++] = values[j]!;
        values[j--] = t;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return values[target]!;
  }
  return values[target]!;
}
