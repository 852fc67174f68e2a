import { useState, type FormEvent } from 'react';
import { Button, Select, TextField } from '../../ui';
import { CONTRADICTION_OPTIONS, SENSITIVITY_OPTIONS, STATUS_OPTIONS, TYPE_OPTIONS } from './options';
import { FILTER_KEYS, type UrlValues } from './useMemoriesUrl';

type FilterValues = Pick<UrlValues, (typeof FILTER_KEYS)[number]>;

const pick = (v: UrlValues): FilterValues => Object.fromEntries(FILTER_KEYS.map((k) => [k, v[k]])) as FilterValues;
const empty = Object.fromEntries(FILTER_KEYS.map((k) => [k, ''])) as FilterValues;

/**
 * The list's filters: edited here, applied together (one history entry) with Apply or Enter. The
 * form restarts from the URL whenever the URL changes (back, forward, a shared link).
 */
export function Filters({ values, onApply }: { values: UrlValues; onApply: (filters: FilterValues) => void }) {
  const fromUrl = pick(values);
  const urlKey = JSON.stringify(fromUrl);
  const active = FILTER_KEYS.filter((k) => fromUrl[k] !== '').length;
  // On a phone the form starts folded (unless a filter is on), so the list is on the first screen.
  const [open, setOpen] = useState(() => active > 0 || !window.matchMedia('(max-width: 760px)').matches);
  return (
    <details className="card mem-filters-card" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="mem-summary">Filters{active > 0 ? ` (${active} on)` : ''}</summary>
      <FilterForm key={urlKey} initial={fromUrl} onApply={onApply} />
    </details>
  );
}

function FilterForm({ initial, onApply }: { initial: FilterValues; onApply: (filters: FilterValues) => void }) {
  const [f, setF] = useState(initial);
  const set = (key: keyof FilterValues) => (value: string) => setF((prev) => ({ ...prev, [key]: value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply({ ...f, q: f.q.trim(), namespace: f.namespace.trim() });
  };
  return (
    <form className="mem-filters" role="search" aria-label="Filter memories" onSubmit={submit}>
      <div className="mem-filter-grid">
        <TextField label="Text in title or content" value={f.q} onChange={set('q')} maxLength={200} />
        <Select label="Type" value={f.type} options={TYPE_OPTIONS} onChange={set('type')} />
        <Select label="Sensitivity" value={f.sensitivity} options={SENSITIVITY_OPTIONS} onChange={set('sensitivity')} />
        <Select label="Status" value={f.status} options={STATUS_OPTIONS} onChange={set('status')} />
        <Select label="Contradiction" value={f.contradiction} options={CONTRADICTION_OPTIONS} onChange={set('contradiction')} />
        <TextField label="Namespace" value={f.namespace} onChange={set('namespace')} maxLength={64} />
        <TextField label="Created from" type="date" value={f.from} onChange={set('from')} hint="From the start of this day (UTC)" />
        <TextField label="Created to" type="date" value={f.to} onChange={set('to')} hint="To the end of this day (UTC)" />
      </div>
      <div className="mem-actions">
        <Button type="submit" variant="primary">
          Apply filters
        </Button>
        <Button
          onClick={() => {
            setF(empty);
            onApply(empty);
          }}
        >
          Clear filters
        </Button>
      </div>
    </form>
  );
}
