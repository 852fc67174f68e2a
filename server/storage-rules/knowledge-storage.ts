import type { StorageQuota } from '../ports/knowledge.js';
import type { ObjectStatus } from '../services/knowledge/model.js';

/**
 * Whether a knowledge object write that moves the tenant's stored bytes by `deltaBytes` passes the
 * storage quota, given the total stored so far. Shrinking (or staying the same) is always allowed, so
 * a tenant over its plan can still trim objects; the same rule as memories (`sizeLimitExceeded`).
 */
export function storageQuotaExceeded(quota: StorageQuota, storedBytes: number, deltaBytes: number): boolean {
  return deltaBytes > 0 && quota.storageBytes !== null && storedBytes + deltaBytes > quota.storageBytes;
}

/** Where an object sits in the list counts: its status and its completeness score. */
export interface CountKey {
  status: ObjectStatus;
  completenessScore: number;
}

/**
 * How a write moves the per-(status, score) object counts the list's `total` is summed from: a create
 * (`before` null) adds one, a delete (`after` null) takes one away, an update moves one between keys
 * when its status or score changed. Counts keyed by exact score, because scores take few distinct
 * values per type (weight ratios), so a `completeness_lt` total sums a handful of rows, not every object.
 */
export function countMoves(before: CountKey | null, after: CountKey | null): (CountKey & { by: 1 | -1 })[] {
  if (before && after && before.status === after.status && before.completenessScore === after.completenessScore) return [];
  const moves: (CountKey & { by: 1 | -1 })[] = [];
  if (before) moves.push({ status: before.status, completenessScore: before.completenessScore, by: -1 });
  if (after) moves.push({ status: after.status, completenessScore: after.completenessScore, by: 1 });
  return moves;
}
