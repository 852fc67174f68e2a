import { EmptyState } from './EmptyState';
import { PageHeader } from './PageHeader';

/**
 * What a page shows until its author replaces its folder: its name and what it will do, so the
 * navigation is complete from the start.
 */
export function PagePlaceholder({ title, purpose }: { title: string; purpose: string }) {
  return (
    <>
      <PageHeader title={title} />
      <EmptyState title="Coming soon">
        <p>{purpose}</p>
      </EmptyState>
    </>
  );
}
