import { PagePlaceholder } from '../../ui';

/** Placeholder: replace this folder with the Members page. */
export default function MembersPage() {
  return <PagePlaceholder title="Members" purpose="Invite people, change their roles and remove them." />;
}
