import { PagePlaceholder } from '../../ui';

/** Placeholder: replace this folder with the Break-glass access page. */
export default function BreakGlassPage() {
  return <PagePlaceholder title="Break-glass access" purpose="Request and review emergency access, with its reason and expiry." />;
}
