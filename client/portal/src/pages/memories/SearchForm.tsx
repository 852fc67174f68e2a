import { useState, type FormEvent } from 'react';
import { Button, Select, TextField } from '../../ui';
import { SEARCH_MODES } from './options';
import type { SearchMode } from './types';

/** The ranked search's query and retrieval mode; submitted together (one history entry). */
export function SearchForm({
  query,
  mode,
  onSearch,
}: {
  query: string;
  mode: SearchMode;
  onSearch: (query: string, mode: SearchMode) => void;
}) {
  return <SearchFormInner key={`${mode}\n${query}`} query={query} mode={mode} onSearch={onSearch} />;
}

function SearchFormInner({
  query,
  mode,
  onSearch,
}: {
  query: string;
  mode: SearchMode;
  onSearch: (query: string, mode: SearchMode) => void;
}) {
  const [q, setQ] = useState(query);
  const [m, setM] = useState<SearchMode>(mode);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (q.trim()) onSearch(q.trim(), m);
  };
  return (
    <form className="card mem-filters" role="search" aria-label="Search memories" onSubmit={submit}>
      <div className="mem-filter-grid mem-search-grid">
        <TextField label="Search query" value={q} onChange={setQ} maxLength={2000} required />
        <Select label="Search mode" value={m} options={SEARCH_MODES} onChange={setM} />
      </div>
      <div className="mem-actions">
        <Button type="submit" variant="primary">
          Search
        </Button>
      </div>
    </form>
  );
}
