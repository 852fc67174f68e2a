import type { RouterInputs, RouterOutputs } from '../../api';

/** The memory page's shapes, straight from the router types. */
export type MemoryListItem = RouterOutputs['portal']['memoriesList']['memories'][number];
export type MemoryDetail = RouterOutputs['portal']['memoryGet'];
export type MemoryVersion = RouterOutputs['portal']['memoryVersions']['versions'][number];
export type SearchResult = RouterOutputs['portal']['memorySearch']['results'][number];
export type ListInput = RouterInputs['portal']['memoriesList'];
export type DeleteInput = RouterInputs['portal']['memoriesDelete'];
/** The list's filters, as a deletion by filter takes them. */
export type MemoryFilter = NonNullable<DeleteInput['filter']>;
export type SearchMode = 'vector-only' | 'hybrid' | 'hybrid+graph';
