import { useState, type FormEvent } from 'react';
import { Button, TextField } from '../../ui';
import { isoToLocal, localToIso, TYPE_PATTERN } from './auditFormat';
import type { AuditFilters } from './useAuditUrl';

const EMPTY: AuditFilters = { type: '', actor: '', from: '', to: '' };

/** The filters, edited locally and applied together (Enter or "Apply filters"); the URL keeps them. */
export function AuditFilterForm({ applied, onApply }: { applied: AuditFilters; onApply: (filters: AuditFilters) => void }) {
  const [type, setType] = useState(applied.type);
  const [actor, setActor] = useState(applied.actor);
  const [from, setFrom] = useState(isoToLocal(applied.from));
  const [to, setTo] = useState(isoToLocal(applied.to));
  const [typeError, setTypeError] = useState<string | undefined>();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const t = type.trim();
    if (t && !TYPE_PATTERN.test(t)) {
      setTypeError('An event type such as auth.login, or an area ending in a dot such as auth.');
      return;
    }
    setTypeError(undefined);
    onApply({ type: t, actor: actor.trim(), from: localToIso(from), to: localToIso(to, true) });
  };
  const clear = () => {
    setType('');
    setActor('');
    setFrom('');
    setTo('');
    setTypeError(undefined);
    onApply(EMPTY);
  };

  return (
    <form className="card audit-filters" onSubmit={submit} aria-label="Filter audit events" role="search">
      <TextField
        label="Event type"
        value={type}
        onChange={setType}
        placeholder="auth. or auth.login"
        hint="An exact type, or a whole area ending in a dot."
        error={typeError}
        autoComplete="off"
        spellCheck={false}
      />
      <TextField label="Actor" value={actor} onChange={setActor} hint="A user id or an API key id." autoComplete="off" spellCheck={false} />
      <TextField label="From" type="datetime-local" value={from} onChange={setFrom} hint="Your local time, inclusive." />
      <TextField label="To" type="datetime-local" value={to} onChange={setTo} hint="Your local time, inclusive." />
      <div className="audit-filter-actions">
        <Button type="submit" variant="primary">
          Apply filters
        </Button>
        <Button onClick={clear}>Clear</Button>
      </div>
    </form>
  );
}
