import type { Logger } from '../logger.js';
import { onboardingSteps, type OnboardingState, type OnboardingStep, type OnboardingStore } from '../ports/onboarding.js';
import type { AuditService, RequestMeta } from './audit.js';
import { isoAt, type Clock } from './clock.js';

/**
 * Told of an event that may tick a tenant's onboarding step. The services that see the events (API
 * keys, memory writes, search) get it from the composition root; it never throws and, once a step is
 * known done in this process, answers without touching the store, so the hot paths pay a map lookup.
 */
export type OnboardingObserver = (tenantId: string, step: OnboardingStep) => Promise<void>;

export interface OnboardingService {
  get(tenantId: string): Promise<OnboardingState>;
  /** A portal user marks a step done by hand (audited as `onboarding.complete`). */
  complete(tenantId: string, step: OnboardingStep, by: RequestMeta & { userId: string }): Promise<OnboardingState>;
  observe: OnboardingObserver;
}

export interface OnboardingServiceDeps {
  store: OnboardingStore;
  audit: Pick<AuditService, 'record'>;
  logger: Pick<Logger, 'warn'>;
  clock: Clock;
}

/** Tenants remembered per process before the memory of ticked steps starts again (it only saves store calls). */
const REMEMBERED_TENANTS = 50_000;

export function createOnboardingService(deps: OnboardingServiceDeps): OnboardingService {
  // Steps this process knows are done, per tenant: only what the store confirmed.
  const done = new Map<string, Set<OnboardingStep>>();

  function remember(tenantId: string, state: OnboardingState): OnboardingState {
    if (done.size >= REMEMBERED_TENANTS && !done.has(tenantId)) done.clear();
    done.set(tenantId, new Set(onboardingSteps.filter((s) => state.steps[s] !== null)));
    return state;
  }

  const tick = async (tenantId: string, step: OnboardingStep, at = isoAt(deps.clock())) =>
    remember(tenantId, await deps.store.tick(tenantId, step, at));

  return {
    get: async (tenantId) => remember(tenantId, await deps.store.get(tenantId)),
    async complete(tenantId, step, by) {
      const at = isoAt(deps.clock());
      const state = await tick(tenantId, step, at);
      // Audited when this call marked the step (the store keeps an earlier time otherwise): a change, not a no-op.
      if (state.steps[step] === at) {
        await deps.audit.record({
          tenantId,
          type: 'onboarding.complete',
          actor: { userId: by.userId },
          ip: by.ip,
          userAgent: by.userAgent,
          target: { type: 'onboarding_step', id: step },
          details: { step, completed_at: state.completedAt },
        });
      }
      return state;
    },
    async observe(tenantId, step) {
      if (done.get(tenantId)?.has(step)) return;
      try {
        await tick(tenantId, step);
      } catch (err) {
        // The checklist is a convenience: the write, search or key that ticked it has already succeeded.
        deps.logger.warn({ err, tenantId, step }, 'onboarding step could not be recorded');
      }
    },
  };
}
