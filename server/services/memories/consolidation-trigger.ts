/**
 * When to consolidate a tenant's queued writes. The queued writes themselves are the durable queue;
 * a `memory.consolidate-writes` job only says "drain this tenant". Every accepted write calls the
 * trigger, which enqueues a job unless one it enqueued moments ago has not started draining yet (that
 * job will see the write). A recurring sweep re-triggers every tenant that still has queued writes, so
 * nothing is forgotten if a trigger is lost (a crash between the 202 and the enqueue, a worker killed
 * while holding the job: its lock expires, the sweep or the retry runs it again).
 */
import type { Logger } from '../../logger.js';
import { consolidateWritesJob } from '../../jobs/catalogue.js';
import type { QueuedJob } from '../../ports/job-queue.js';
import type { Scheduler } from '../../ports/scheduler.js';
import type { Clock } from '../clock.js';

/**
 * How long an enqueued job that has not been seen to start still covers new writes. Within this
 * process a drain start is seen at once; for an external worker this bounds the extra wait of a write
 * that arrives just after a job was picked up.
 */
export const TRIGGER_COVER_MS = 100;

/** One consolidation job for the tenant; enqueues at the same millisecond collapse into one. */
function enqueue(scheduler: Pick<Scheduler, 'now'>, tenantId: string, now: number) {
  return scheduler.now(consolidateWritesJob, { tenantId, slot: now }, { unique: { tenantId, slot: now }, insertOnly: true });
}

export interface ConsolidationTrigger {
  /** The memory service calls it when a write of the tenant was committed. Never throws. */
  queued(tenantId: string): void;
  /** The consolidation service calls it when a drain of the tenant is about to read the queue. */
  drainStarted(tenantId: string): void;
  /** The consolidation service calls it when that drain read an empty queue (or stopped) and ended. */
  drainEnded(tenantId: string): void;
  /** Enqueues a drain of the tenant now, whatever covers it (a run's continuation, the sweep); rejects when the enqueue fails. */
  requestDrain(tenantId: string, at?: number): Promise<QueuedJob>;
}

/**
 * Enqueues a consolidation job for a tenant's committed write, except when something already covers
 * it: a drain of the tenant running in this process (it reads the queue again before it ends; a write
 * that lands after its last read is enqueued when it ends), or a job this process enqueued less than
 * TRIGGER_COVER_MS ago that has not started (a trailing enqueue covers the write once that window ends,
 * unless a drain read the queue meanwhile). So every write is followed by a drain that reads the queue
 * after its commit; a failed enqueue is logged and left to the sweep.
 */
export function createConsolidationTrigger(
  scheduler: () => Pick<Scheduler, 'now'>,
  logger: Logger,
  clock: Clock = Date.now,
): ConsolidationTrigger {
  interface State {
    /** When this process last enqueued for the tenant, or -Infinity after a drain read the queue. */
    firedAt: number;
    /** A write was committed since the last enqueue or queue read, and nothing covers it yet. */
    suppressed: boolean;
    /** Drains of the tenant running in this process. */
    running: number;
    trailing: ReturnType<typeof setTimeout> | null;
  }
  const tenants = new Map<string, State>();
  const stateOf = (tenantId: string): State => {
    let state = tenants.get(tenantId);
    if (!state) {
      if (tenants.size >= 10_000) for (const [id, s] of tenants) if (s.running === 0 && !s.trailing) tenants.delete(id);
      state = { firedAt: Number.NEGATIVE_INFINITY, suppressed: false, running: 0, trailing: null };
      tenants.set(tenantId, state);
    }
    return state;
  };
  const fire = (tenantId: string, state: State) => {
    const now = clock();
    state.firedAt = now;
    state.suppressed = false;
    enqueue(scheduler(), tenantId, now).catch((err: unknown) =>
      logger.warn({ tenantId, err: err instanceof Error ? err.message : String(err) }, 'could not enqueue consolidation; the sweep will'),
    );
  };
  return {
    queued(tenantId) {
      const state = stateOf(tenantId);
      if (state.running > 0) {
        state.suppressed = true; // the running drain reads the queue again, or drainEnded enqueues
        return;
      }
      const now = clock();
      if (now - state.firedAt >= TRIGGER_COVER_MS) {
        fire(tenantId, state);
        return;
      }
      state.suppressed = true;
      if (state.trailing) return;
      const s = state;
      s.trailing = setTimeout(
        () => {
          s.trailing = null;
          if (s.suppressed && s.running === 0) fire(tenantId, s);
        },
        Math.max(1, s.firedAt + TRIGGER_COVER_MS - now),
      );
      s.trailing.unref?.();
    },
    drainStarted(tenantId) {
      const state = stateOf(tenantId);
      if (state.running === 0) state.running = 1;
      // Every write committed so far is read by this drain (it runs until the queue is empty).
      state.suppressed = false;
      state.firedAt = Number.NEGATIVE_INFINITY;
    },
    drainEnded(tenantId) {
      const state = stateOf(tenantId);
      state.running = 0;
      if (state.suppressed) fire(tenantId, state);
    },
    requestDrain: (tenantId, at = clock()) => enqueue(scheduler(), tenantId, at),
  };
}
