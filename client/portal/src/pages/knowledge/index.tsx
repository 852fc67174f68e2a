import { PagePlaceholder } from '../../ui';

/** Placeholder: replace this folder with the Knowledge page. */
export default function KnowledgePage() {
  return <PagePlaceholder title="Knowledge" purpose="The knowledge extracted from memories: entities, facts and their sources." />;
}
