import type { RouterOutputs } from '../../api';
import { Select } from '../../ui';

type KnowledgeType = RouterOutputs['portal']['knowledgeTypes']['types'][number];

/** The tenant's knowledge types with their object counts. */
export function TypePicker({
  types,
  value,
  onChange,
}: {
  types: readonly KnowledgeType[];
  value: string;
  onChange: (type: string) => void;
}) {
  const options = types.map((t) => ({
    value: t.type,
    label: `${t.type} (${t.object_count} ${t.object_count === 1 ? 'object' : 'objects'})${t.active_version === null ? ' · draft only' : ''}`,
  }));
  if (!options.some((o) => o.value === value)) options.unshift({ value, label: value });
  return <Select label="Type" value={value} options={options} onChange={onChange} />;
}
