import type { Collection, Db } from 'mongodb';
import { onboardingSteps, type OnboardingState, type OnboardingStore } from '../../server/ports/onboarding.js';

interface OnboardingDoc {
  _id: string;
  created_api_key?: string | null;
  sent_first_memory?: string | null;
  ran_first_search?: string | null;
  completedAt?: string | null;
}

const toState = (d: OnboardingDoc | null): OnboardingState => ({
  steps: {
    created_api_key: d?.created_api_key ?? null,
    sent_first_memory: d?.sent_first_memory ?? null,
    ran_first_search: d?.ran_first_search ?? null,
  },
  completedAt: d?.completedAt ?? null,
});

/**
 * Onboarding checklists on MongoDB (collection `onboarding`, one document per tenant, `_id` the tenant
 * id). A tick is one pipeline update: the step keeps its first time, and `completedAt` is set in the
 * same update once every step has one, so concurrent ticks cannot leave it unset.
 */
export function createMongoOnboardingStore(db: Db): OnboardingStore {
  const docs: Collection<OnboardingDoc> = db.collection<OnboardingDoc>('onboarding');
  return {
    async get(tenantId) {
      return toState(await docs.findOne({ _id: tenantId }));
    },
    async tick(tenantId, step, at) {
      const allDone = { $and: onboardingSteps.map((s) => ({ $ne: [{ $ifNull: [`$${s}`, null] }, null] })) };
      const after = await docs.findOneAndUpdate(
        { _id: tenantId },
        [
          { $set: { [step]: { $ifNull: [`$${step}`, { $literal: at }] } } },
          { $set: { completedAt: { $ifNull: ['$completedAt', { $cond: [allDone, { $literal: at }, null] }] } } },
        ],
        { upsert: true, returnDocument: 'after' },
      );
      return toState(after);
    },
  };
}
