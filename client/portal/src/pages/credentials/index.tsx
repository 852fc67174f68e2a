import { PagePlaceholder } from '../../ui';

/** Placeholder: replace this folder with the API keys page. */
export default function CredentialsPage() {
  return (
    <PagePlaceholder
      title="API keys"
      purpose="Create, rotate and revoke the API keys your applications use, with their scopes and namespaces."
    />
  );
}
