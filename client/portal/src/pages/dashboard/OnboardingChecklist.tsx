import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client, trpc, type RouterInputs } from '../../api';
import { Button, ErrorBanner } from '../../ui';
import { Snippets } from './Snippets';
import type { Onboarding } from './types';
import { formatDateTime } from './format';

type Step = RouterInputs['portal']['completeOnboardingStep']['step'];

const steps: { step: Step; label: string; hint: string }[] = [
  { step: 'created_api_key', label: 'Create an API key', hint: 'Your application authenticates with it (API keys page).' },
  { step: 'sent_first_memory', label: 'Write your first memory', hint: 'POST /memories with the key.' },
  { step: 'ran_first_search', label: 'Run your first search', hint: 'GET /memories/search with the key.' },
];

/**
 * The three first steps, ticked by the server as they happen; a member can also mark one done by hand.
 * Each step's state is in words, not only in the tick mark.
 */
export function OnboardingChecklist({ status, canComplete }: { status: Onboarding; canComplete: boolean }) {
  const queryClient = useQueryClient();
  const complete = useMutation({
    mutationFn: (step: Step) => client.portal.completeOnboardingStep.mutate({ step }),
    onSuccess: (onboarding) => {
      queryClient.setQueryData(trpc.portal.dashboard.queryKey({}), (old) => (old ? { ...old, onboarding_status: onboarding } : old));
      void queryClient.invalidateQueries({ queryKey: trpc.portal.onboarding.queryKey() });
    },
  });
  const doneCount = steps.filter((s) => status[s.step]).length;
  return (
    <section aria-labelledby="onboarding-heading" className="card dash-section">
      <h2 id="onboarding-heading">Getting started</h2>
      <p role="status" data-testid="onboarding-summary">
        {status.completed_at ? (
          <>
            All steps done on <time dateTime={status.completed_at}>{formatDateTime(status.completed_at)}</time>.
          </>
        ) : (
          `${doneCount} of ${steps.length} steps done.`
        )}
      </p>
      <ol className="dash-checklist">
        {steps.map((s) => {
          const done = status[s.step];
          return (
            <li key={s.step} className={done ? 'dash-step dash-step-done' : 'dash-step'} data-testid={`step-${s.step}`}>
              <span className="dash-step-mark" aria-hidden="true">
                {done ? '✓' : '○'}
              </span>
              <div className="dash-step-body">
                <strong>{s.label}</strong> <span className="dash-step-state">{done ? '(done)' : '(to do)'}</span>
                <div className="dash-muted">{s.hint}</div>
              </div>
              {!done && canComplete && (
                <Button busy={complete.isPending && complete.variables === s.step} onClick={() => complete.mutate(s.step)}>
                  Mark as done<span className="visually-hidden">: {s.label}</span>
                </Button>
              )}
            </li>
          );
        })}
      </ol>
      <ErrorBanner error={complete.error} title="Could not mark the step done" />
      <Snippets />
    </section>
  );
}
