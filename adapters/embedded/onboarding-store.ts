import { onboardingSteps, type OnboardingState, type OnboardingStep, type OnboardingStore } from '../../server/ports/onboarding.js';
import type { EmbeddedDatabase } from './database.js';

interface Row {
  created_api_key: string | null;
  sent_first_memory: string | null;
  ran_first_search: string | null;
  completed_at: string | null;
}

const toState = (row: Row | undefined): OnboardingState => ({
  steps: {
    created_api_key: row?.created_api_key ?? null,
    sent_first_memory: row?.sent_first_memory ?? null,
    ran_first_search: row?.ran_first_search ?? null,
  },
  completedAt: row?.completed_at ?? null,
});

/** Onboarding checklists of the embedded profile (table of migration 62). */
export function createEmbeddedOnboardingStore(db: EmbeddedDatabase): OnboardingStore {
  const get = db.prepare('SELECT created_api_key, sent_first_memory, ran_first_search, completed_at FROM onboarding WHERE tenant_id = ?');
  // One statement per step: the first time is kept, and `completed_at` is set by the statement that
  // fills the last empty step (the right-hand sides of DO UPDATE read the row before the change).
  const tick = Object.fromEntries(
    onboardingSteps.map((step) => {
      const others = onboardingSteps.filter((s) => s !== step);
      const sql = `INSERT INTO onboarding (tenant_id, ${step}) VALUES (?1, ?2)
        ON CONFLICT (tenant_id) DO UPDATE SET ${step} = COALESCE(${step}, ?2),
          completed_at = COALESCE(completed_at, CASE WHEN ${others.map((s) => `${s} IS NOT NULL`).join(' AND ')} THEN ?2 END)
        RETURNING created_api_key, sent_first_memory, ran_first_search, completed_at`;
      return [step, db.prepare(sql)];
    }),
  ) as Record<OnboardingStep, ReturnType<EmbeddedDatabase['prepare']>>;

  return {
    async get(tenantId) {
      return toState(get.get([tenantId]) as Row | undefined);
    },
    async tick(tenantId, step, at) {
      return toState(tick[step].get([tenantId, at]) as Row);
    },
  };
}
