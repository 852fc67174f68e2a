import { PagePlaceholder } from '../../ui';

/** Placeholder: replace this folder with the Data page. */
export default function DataPage() {
  return <PagePlaceholder title="Data" purpose="Export this tenant's data and set how long memories are retained." />;
}
