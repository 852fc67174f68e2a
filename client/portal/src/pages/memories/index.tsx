import { PagePlaceholder } from '../../ui';

/** Placeholder: replace this folder with the Memories page. */
export default function MemoriesPage() {
  return <PagePlaceholder title="Memories" purpose="Browse, search and delete the memories stored for this tenant." />;
}
