import { useId } from 'react';
import type { Scope } from './types';

/**
 * The scopes as a checkbox group, each with what it allows; a scope the user's role may not grant is
 * shown disabled with the reason in text.
 */
export function ScopePicker({
  scopes,
  selected,
  onChange,
  error,
}: {
  scopes: readonly Scope[];
  selected: ReadonlySet<string>;
  onChange: (next: Set<string>) => void;
  error?: string | undefined;
}) {
  const base = useId();
  const errorId = `${base}-error`;
  const toggle = (scope: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(scope);
    else next.delete(scope);
    onChange(next);
  };
  return (
    <fieldset className="cred-scopes" aria-describedby={error ? errorId : undefined}>
      <legend>Scopes</legend>
      {scopes.map((s) => {
        const id = `${base}-${s.scope}`;
        return (
          <div key={s.scope} className="cred-scope">
            <input
              id={id}
              type="checkbox"
              checked={selected.has(s.scope)}
              disabled={!s.grantable}
              onChange={(e) => toggle(s.scope, e.target.checked)}
              aria-describedby={`${id}-desc`}
            />
            <label htmlFor={id}>
              <code>{s.scope}</code>
            </label>
            <p id={`${id}-desc`} className="field-hint">
              {s.description}
              {!s.grantable && ' — your role cannot grant this scope.'}
            </p>
          </div>
        );
      })}
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
