import { PageHeader } from '../../ui';
import './data.css';
import { ExportCard } from './ExportCard';
import { RetentionCard } from './RetentionCard';
import { usePermissions } from './usePermissions';

/** The Data page: export everything the tenant stores, and how long replaced versions are kept. */
export default function DataPage() {
  const permissions = usePermissions();
  return (
    <>
      <PageHeader title="Data" />
      <ExportCard allowed={permissions && permissions.has('data:export')} />
      <RetentionCard allowed={permissions && permissions.has('retention:override')} />
    </>
  );
}
