/**
 * Storage port of each tenant's onboarding checklist (the portal's `/api/portal/onboarding`): when each
 * step was first done, and when the last of them was. Steps tick themselves from real events (a key
 * created, a first write, a first search) or by a portal user's explicit `complete`.
 */

export const onboardingSteps = ['created_api_key', 'sent_first_memory', 'ran_first_search'] as const;
export type OnboardingStep = (typeof onboardingSteps)[number];

export interface OnboardingState {
  /** When each step was first done (RFC 3339), or null. */
  steps: Record<OnboardingStep, string | null>;
  /** When the last of the three steps was done; null until then. */
  completedAt: string | null;
}

export interface OnboardingStore {
  /** The tenant's checklist; every step null for a tenant that has done nothing yet. */
  get(tenantId: string): Promise<OnboardingState>;
  /**
   * Marks a step done at `at` unless it already is (the first time is kept), and sets `completedAt`
   * to `at` when this makes all three done. Atomic per tenant; returns the state after the change.
   */
  tick(tenantId: string, step: OnboardingStep, at: string): Promise<OnboardingState>;
}

/** The state of a tenant that has done nothing yet. */
export const emptyOnboarding = (): OnboardingState => ({
  steps: { created_api_key: null, sent_first_memory: null, ran_first_search: null },
  completedAt: null,
});
