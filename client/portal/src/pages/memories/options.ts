import type { SelectOption } from '../../ui';
import type { SearchMode } from './types';

/** The values the API accepts (routers/memories/schemas.ts), with "any" as the empty choice. */
const anyOf = (values: readonly string[]): SelectOption<string>[] => [
  { value: '', label: 'Any' },
  ...values.map((v) => ({ value: v, label: v })),
];

export const TYPE_OPTIONS = anyOf(['episodic', 'semantic', 'procedural']);
export const SENSITIVITY_OPTIONS = anyOf(['low', 'medium', 'high']);
export const STATUS_OPTIONS = anyOf(['active', 'archived', 'superseded']);
export const CONTRADICTION_OPTIONS = anyOf(['clear', 'flagged', 'resolved']);

export const SEARCH_MODES: readonly SelectOption<SearchMode>[] = [
  { value: 'vector-only', label: 'Vector only' },
  { value: 'hybrid', label: 'Hybrid (vector + keyword)' },
  { value: 'hybrid+graph', label: 'Hybrid + graph' },
];

export const isSearchMode = (v: string): v is SearchMode => SEARCH_MODES.some((m) => m.value === v);

export const PAGE_SIZE = 20;
