import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

/**
 * Time-ordered UUIDs (v7) whose random bits come from a pooled buffer.
 *
 * `uuid`'s own v7 asks `crypto.getRandomValues` for 16 fresh bytes per id, and that call costs more
 * than everything else in making the id (figures: docs/performance.md#memory-ids-from-a-pooled-random-buffer).
 * Node's `randomUUID` avoids the same cost by drawing from a refilled buffer; this does the
 * same for v7: one `randomFillSync` per 256 ids, still from the CSPRNG.
 *
 * Ids stay monotonic within the process, as `uuid`'s default v7 keeps them: within one millisecond the
 * 32-bit sequence counts up from a random start (RFC 9562 §6.2, method 1), and a wrapped sequence
 * borrows the next millisecond.
 */
const POOL_IDS = 256;
const pool = new Uint8Array(16 * POOL_IDS);
let next = POOL_IDS;
let lastMs = -Infinity;
let seq = 0;

function randomBytes16(): Uint8Array {
  if (next === POOL_IDS) {
    randomFillSync(pool);
    next = 0;
  }
  const start = 16 * next++;
  return pool.subarray(start, start + 16);
}

export function timeOrderedId(): string {
  const random = randomBytes16();
  const now = Date.now();
  if (now > lastMs) {
    // A random start leaves room to count up (the top bit clear), as uuid's v7Sequence does.
    seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
    lastMs = now;
  } else {
    seq = (seq + 1) | 0;
    if (seq === 0) lastMs++;
  }
  return v7({ random, msecs: lastMs, seq });
}
